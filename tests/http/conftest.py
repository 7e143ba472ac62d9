"""One real server per test module: ``python -m sglang.launch_server`` on the tiny test model."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from sglang.testing.make_model import make_model
from tests.http.server import ServerProcess

API_KEY = "test-key"
MODEL_NAME = "tiny-llama"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_model(tmp_path_factory.mktemp("http") / "llama", arch="llama")


@pytest.fixture(scope="module")
def server(model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server (API key :data:`API_KEY`, model id :data:`MODEL_NAME`); SIGTERM at the end.

    Teardown checks the shutdown (exit status 0, no child process left) and
    that no request made the server log a traceback.
    """
    args = ["--api-key", API_KEY, "--served-model-name", MODEL_NAME]
    args += ["--max-total-tokens", "4096", "--page-size", "4", "--max-running-requests", "32"]
    with serving(model, tmp_path_factory.mktemp("http-log") / "server.log", args) as running:
        yield running


@contextlib.contextmanager
def serving(
    model: Path, log: Path, args: Sequence[str], env: Mapping[str, str] | None = None
) -> Iterator[ServerProcess]:
    """A healthy :class:`ServerProcess`, stopped with SIGTERM and checked at the end.

    The checks: exit status 0, no child process left, no traceback logged.
    """
    running = ServerProcess(model, log, args, env=env)
    try:
        running.wait_healthy()
        assert running.children, "the server started no scheduler process"
        yield running
    except BaseException:
        running.kill()
        raise
    status = running.stop(signal.SIGTERM)
    assert status == 0, running.output()
    assert running.leftover_children() == [], running.output()
    assert "Traceback" not in running.output(), "the server logged an unexpected error"
