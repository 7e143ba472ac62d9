"""A real ``python -m sglang.launch_server`` child for the HTTP tests: :class:`ServerProcess`."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx
import psutil  # type: ignore[import-untyped]

from tests.support.dists import suite_env
from tests.support.isolation import clean_environment
from tests.support.processes import free_port

__all__ = ["ServerProcess", "free_port"]

START_TIMEOUT = 180.0


class ServerProcess:
    """``python -m sglang.launch_server --model-path MODEL ARGS`` on a free port (CPU engine).

    The child runs the plugin-free interpreter with ``SGLANG_USE_CPU_ENGINE=1``,
    *env* and no other ``SGLANG_*`` variable; its output goes to *log*.
    *command* replaces what comes between the interpreter and the model
    (for example ``("-m", "sglang.cli.main", "serve")``); *port* replaces
    the free one.
    """

    def __init__(
        self,
        model: Path | str,
        log: Path,
        args: Sequence[str] = (),
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        command: Sequence[str] = ("-m", "sglang.launch_server", "--model-path"),
    ) -> None:
        self.port = free_port() if port is None else port
        self.url = f"http://127.0.0.1:{self.port}"
        environ = suite_env()
        environ["SGLANG_USE_CPU_ENGINE"] = "1"
        environ.update(env or {})
        argv = [str(clean_environment().python), *command]
        argv += [str(model), "--port", str(self.port), *args]
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(
            argv, env=environ, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        self.children: list[psutil.Process] = []

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until ``GET /health`` answers 200; record the child processes then."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited {self.proc.returncode}:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    self.children = psutil.Process(self.proc.pid).children(recursive=True)
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.kill()
        raise AssertionError(f"the server did not become healthy:\n{self.output()}")

    def output(self) -> str:
        """What the server printed so far."""
        if not self._log_file.closed:
            self._log_file.flush()
        return self.log.read_text(errors="replace")

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send *sig*, wait for the exit; return the exit status."""
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            self._log_file.close()

    def wait_exit(self, timeout: float = START_TIMEOUT) -> int:
        """Wait for the server to exit by itself, recording its children meanwhile."""
        seen = {child.pid: child for child in self.children}
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(psutil.NoSuchProcess):
                for child in psutil.Process(self.proc.pid).children(recursive=True):
                    seen.setdefault(child.pid, child)
            time.sleep(0.1)
        self.children = list(seen.values())
        try:
            return self.proc.wait(1)
        finally:
            self._log_file.close()

    def leftover_children(self, timeout: float = 10.0) -> list[psutil.Process]:
        """The children recorded at start that are still alive after *timeout* seconds."""
        _, alive = psutil.wait_procs(self.children, timeout=timeout)
        return list(alive)

    def kill(self) -> None:
        """Kill the server and its children (cleanup after a failure)."""
        self.proc.kill()
        for child in self.children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
        self.proc.wait(10)
        self._log_file.close()
