"""What an operator sees: start-up lines, ``--log-level``, fast failures, quick stops.

Both command lines are exercised as real processes: ``sglang serve MODEL``
(through ``python -m sglang.cli.main``, the console script's function) and
``python -m sglang.launch_server``; the model also comes from a Hugging
Face cache folder laid out as ``huggingface_hub`` lays it out.
"""

from __future__ import annotations

import re
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.http.server import ServerProcess
from tests.support.hf_cache import COMMIT, REPO_ID, hf_cache

SERVE = ("-m", "sglang.cli.main", "serve")
LAUNCH = ("-m", "sglang.launch_server", "--model-path")
COMMANDS = {"sglang serve": SERVE, "launch_server": LAUNCH}
PREFIX = {"sglang serve": "sglang serve: error: ", "launch_server": "sglang.launch_server: error: "}


def stop_time(server: ServerProcess, sig: signal.Signals) -> tuple[int, float]:
    """Send *sig*; return the exit status and the seconds until the process was gone."""
    started = time.monotonic()
    status = server.stop(sig)
    return status, time.monotonic() - started


def test_sglang_serve_logs_the_start_up_lines_and_stops_on_sigterm_at_once(
    model: Path, tmp_path: Path
) -> None:
    args = ["--max-total-tokens", "512", "--page-size", "4", "--served-model-name", "tiny"]
    server = ServerProcess(model, tmp_path / "serve.log", args, command=SERVE)
    try:
        server.wait_healthy()
        assert httpx.get(f"{server.url}/v1/models").json()["data"][0]["id"] == "tiny"
    except BaseException:
        server.kill()
        raise
    status, seconds = stop_time(server, signal.SIGTERM)
    out = server.output()
    assert status == 0, out
    assert seconds < 2.0, out
    assert server.leftover_children(timeout=1) == []
    lines = [line for line in out.splitlines() if "sglang.srt.entrypoints.http_server:" in line]
    assert (
        "SRT platform: sglang.runtime.builtin.srt.CpuSRTPlatform (built-in); why: fallback"
        in (lines[0])
    )
    assert re.search(rf"model {model} \(served as 'tiny'\): dtype float32, tp-size 1$", lines[1])
    assert lines[2].endswith(
        "KV cache: 512 tokens in 128 pages of 4 tokens; context length 256; max running requests 32"
    )
    assert lines[3].endswith(f"serving tiny on http://127.0.0.1:{server.port}")
    assert lines[0].startswith("INFO ")
    assert "Traceback" not in out


def test_a_cached_hugging_face_id_serves_quietly_and_stops_on_ctrl_c(
    model: Path, tmp_path: Path
) -> None:
    env = {"HF_HUB_CACHE": str(hf_cache(model, tmp_path / "hub")), "HF_HUB_OFFLINE": "1"}
    args = ["--max-total-tokens", "512", "--log-level", "warning"]
    server = ServerProcess(REPO_ID, tmp_path / "hf.log", args, env=env, command=LAUNCH)
    try:
        server.wait_healthy()
        card = httpx.get(f"{server.url}/v1/models").json()["data"][0]
        info = httpx.get(f"{server.url}/get_model_info").json()
    except BaseException:
        server.kill()
        raise
    status, seconds = stop_time(server, signal.SIGINT)
    out = server.output()
    assert status == 0, out
    assert seconds < 2.0, out
    assert card["id"] == REPO_ID  # the API reports the id, as upstream
    assert info["model_path"].endswith(f"snapshots/{COMMIT}")
    assert " INFO sglang" not in out  # --log-level warning reaches the runtime's loggers
    assert "Traceback" not in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_bad_model_path_fails_at_once_in_one_line(name: str, tmp_path: Path) -> None:
    missing = tmp_path / "no-model"
    env = {"HF_HUB_CACHE": str(tmp_path / "hub")}
    started = time.monotonic()
    server = ServerProcess(missing, tmp_path / "log", env=env, command=COMMANDS[name])
    server.wait_exit(timeout=60)
    seconds = time.monotonic() - started
    assert server.proc.returncode == 1
    assert seconds < 2.0
    assert server.children == [], "a scheduler was spawned"
    (line,) = server.output().strip().splitlines()
    assert line == (
        f"{PREFIX[name]}--model-path '{missing}' is neither a directory nor a model in the local "
        f"Hugging Face cache ({tmp_path / 'hub'}); give a checkpoint "
        f"directory or a Hugging Face model id (org/name)"
    )


def test_an_id_missing_from_the_cache_says_so_and_debug_adds_the_traceback(
    tmp_path: Path,
) -> None:
    env = {"HF_HUB_CACHE": str(tmp_path / "empty")}
    quiet = ServerProcess("org/absent", tmp_path / "quiet.log", env=env, command=SERVE)
    quiet.wait_exit(timeout=60)
    (line,) = quiet.output().strip().splitlines()
    assert "'org/absent' is neither a directory nor a model in the local Hugging Face" in line
    assert (
        f"cache ({tmp_path / 'empty'}); download the model first (hf download org/absent)" in line
    )
    debug = ServerProcess(
        "org/absent", tmp_path / "debug.log", ["--log-level", "debug"], env=env, command=SERVE
    )
    debug.wait_exit(timeout=60)
    out = debug.output()
    assert debug.proc.returncode == 1
    assert "Traceback (most recent call last)" in out
    assert "ModelPathError" in out
    assert out.strip().splitlines()[-1] == line


def test_sglang_serve_with_a_port_in_use_fails_at_once(model: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        server = ServerProcess(model, tmp_path / "log", port=port, command=SERVE)
        server.wait_exit(timeout=60)
        seconds = time.monotonic() - started
    assert server.proc.returncode == 1
    assert seconds < 2.0
    assert server.children == []
    (line,) = server.output().strip().splitlines()
    assert line.startswith(f"sglang serve: error: cannot listen on 127.0.0.1:{port}: address")
