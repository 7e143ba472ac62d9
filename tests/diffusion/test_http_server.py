"""The diffusion HTTP server end to end: a real process, real sockets, real clients."""

from __future__ import annotations

import base64
import io
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image

from tests.diffusion.support import recording_site
from tests.support.isolation import clean_environment
from tests.support.processes import HAS_PROC, free_port, wait_gone

SERVE = """
import sys

if __name__ == "__main__":  # spawn re-runs this scope in the server child: keep it empty
    from sglang.multimodal_gen.runtime.entrypoints.http_server import launch_server
    from sglang.multimodal_gen.runtime.server_args import prepare_server_args

    launch_server(prepare_server_args(sys.argv[1:]))
"""


SGLANG_SERVE = "import sys\nfrom sglang.cli.main import main\nsys.exit(main())"
"""``sglang serve ...``: the console script's function, run by the plugin-free interpreter."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> Iterator[str]:
    """``sglang serve MODEL``: auto routing picks the diffusion backend (``model_index.json``)."""
    folder = tmp_path_factory.mktemp("http")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    command = [str(clean_environment().python), "-c", SGLANG_SERVE, "serve", str(tiny_model)]
    command += ["--port", str(port), "--api-key", "sk-test", "--log-level", "warning"]
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            headers = {"Authorization": "Bearer sk-test"}
            if httpx.get(f"{base}/health", headers=headers, timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the server did not start:\n" + (folder / "server.log").read_text())
        time.sleep(0.3)
    try:
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        log.close()
        assert code == 0, (folder / "server.log").read_text()


def test_openai_client_generates_a_png(server: str) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=f"{server}/v1", api_key="sk-test")
    result = client.images.generate(
        model="tiny",
        prompt="a red fox",
        size="64x64",
        response_format="b64_json",
        extra_body={"seed": 3, "num_inference_steps": 2},
    )
    assert result.data is not None
    b64 = result.data[0].b64_json
    assert b64 is not None
    image = Image.open(io.BytesIO(base64.b64decode(b64)))
    assert (image.format, image.size) == ("PNG", (64, 64))


def test_seeded_requests_are_identical(server: str) -> None:
    body = {"prompt": "a cat", "size": "32x32", "seed": 9, "num_inference_steps": 2}
    headers = {"Authorization": "Bearer sk-test"}
    first = httpx.post(f"{server}/v1/images/generations", json=body, headers=headers, timeout=60)
    again = httpx.post(f"{server}/v1/images/generations", json=body, headers=headers, timeout=60)
    assert first.status_code == 200
    assert first.json()["data"] == again.json()["data"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"prompt": "x", "style": "vivid"}, "style: Extra inputs are not permitted"),
        ({"prompt": "x", "n": 2}, "n must be 1"),
        ({"prompt": "x", "size": "big"}, "size must be 'WIDTHxHEIGHT'"),
        ({"prompt": "x", "size": "20x20"}, "multiples of 16"),
        ({"prompt": "x", "guidance_scale": 0.1}, "guidance_scale must be a number >= 1"),
        ({"prompt": "x", "response_format": "url"}, "response_format"),
    ],
)
def test_bad_requests_are_400_in_the_openai_error_shape(
    server: str, body: dict[str, object], message: str
) -> None:
    response = httpx.post(
        f"{server}/v1/images/generations",
        json=body,
        headers={"Authorization": "Bearer sk-test"},
        timeout=60,
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert message in error["message"]


def test_the_api_key_is_required_on_every_endpoint_but_health(server: str) -> None:
    url = f"{server}/v1/images/generations"
    for headers in ({}, {"Authorization": "Bearer nope"}):
        response = httpx.post(url, json={"prompt": "x"}, headers=headers, timeout=10)
        assert response.status_code == 401
        error = response.json()["error"]
        assert (error["type"], error["code"]) == ("authentication_error", "invalid_api_key")
        assert "API key" in error["message"]
    assert httpx.get(f"{server}/health", timeout=10).status_code == 200  # as on the SRT server


def test_malformed_json_is_400_in_the_openai_error_shape(server: str) -> None:
    response = httpx.post(
        f"{server}/v1/images/generations",
        content=b"{not json",
        headers={"Authorization": "Bearer sk-test", "Content-Type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.skipif(not HAS_PROC, reason="reads the server's children from /proc")
def test_sigterm_stops_the_server_and_its_workers(tmp_path: Path, tiny_model: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text(SERVE, encoding="utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    proc = subprocess.Popen(
        [str(clean_environment().python), str(script), str(tiny_model), "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    children = [
        int(x) for x in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    ]
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert "already imported" not in output
    assert children
    assert wait_gone(children, timeout=10)


def test_the_http_child_applies_hooks_before_importing_the_server_module(
    tmp_path: Path, tiny_model: Path
) -> None:
    site = recording_site(tmp_path / "site")
    events = tmp_path / "events.txt"
    script = tmp_path / "serve.py"
    script.write_text(SERVE, encoding="utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env.update(
        SGLANG_DIFFUSION_PLATFORM_OVERRIDE="recording",
        REC_EVENTS=str(events),
        PYTHONPATH=os.pathsep.join([str(site.root), env.get("PYTHONPATH", "")]),
    )
    proc = subprocess.Popen(
        [str(clean_environment().python), str(script), str(tiny_model), "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    by_pid: dict[int, list[str]] = {}
    for line in events.read_text().splitlines():
        pid, _, text = line.partition(" ")
        by_pid.setdefault(int(pid), []).append(text)
    launcher = by_pid.pop(proc.pid)
    assert "lifecycle load_plugins" in launcher
    servers = [texts for texts in by_pid.values() if "lifecycle init_backend" not in texts]
    (http_child,) = servers  # the scheduler child is the one that initialised the backend
    assert http_child[:3] == [
        "lifecycle load_plugins",
        "lifecycle apply_plugin_hooks",
        "server module imported: False",
    ]
