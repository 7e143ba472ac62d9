"""``python -m sglang.launch_server`` as a real process: help, Ctrl-C, a port in use."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import httpx

from tests.http.server import ServerProcess
from tests.support.dists import run_python


def test_help_lists_the_flags_and_imports_no_torch() -> None:
    code = """
    import runpy, sys
    sys.argv = ["launch_server", "--help"]
    try:
        runpy.run_module("sglang.launch_server", run_name="__main__")
    except SystemExit as exc:
        print("exit", exc.code)
    print("torch loaded:", "torch" in sys.modules, "fastapi loaded:", "fastapi" in sys.modules)
    """
    out = run_python(code).check().stdout
    for flag in ("--model-path", "--host", "--port", "--api-key", "--served-model-name"):
        assert flag in out
    assert "exit 0" in out
    assert "torch loaded: False fastapi loaded: False" in out


def test_ctrl_c_stops_the_server_and_its_schedulers(model: Path, tmp_path: Path) -> None:
    server = ServerProcess(model, tmp_path / "server.log", ["--max-total-tokens", "512"])
    try:
        server.wait_healthy()
        # no --api-key: every endpoint is open, the model id is the path
        models = httpx.get(f"{server.url}/v1/models").json()
        assert [m["id"] for m in models["data"]] == [str(model)]
    except BaseException:
        server.kill()
        raise
    assert server.stop(signal.SIGINT) == 0, server.output()
    assert server.leftover_children() == [], server.output()
    assert "Traceback" not in server.output()


def test_a_port_in_use_fails_at_once_before_any_scheduler(model: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        server = ServerProcess(model, tmp_path / "server.log", ["--max-total-tokens", "512"], port)
        try:
            status = server.wait_exit()
        except BaseException:
            server.kill()
            raise
        elapsed = time.monotonic() - started
    assert status == 1, server.output()
    assert elapsed < 2.0, server.output()
    assert server.children == [], "a scheduler was spawned"
    (line,) = server.output().strip().splitlines()
    assert line.startswith(f"sglang.launch_server: error: cannot listen on 127.0.0.1:{port}")
    assert "address already in use" in line
