"""Timing helpers shared by the benchmarks.

Every benchmark measures its baseline in the same run and reports ratios,
so results compare across machines. Import from a benchmark script run as
``python benchmarks/bench_NAME.py`` (the script's folder is on ``sys.path``)::

    from _common import median_ms, print_table

* :func:`median_ms` times a callable ``repeat`` times, running ``setup``
  (untimed) before each repetition, and returns the median in milliseconds.
* :func:`print_table` prints rows under headers as an aligned text table.
* :func:`machine` describes the machine in one line for the results table.
* :func:`running_servers` starts ``python -m sglang.launch_server`` processes
  on free ports of 127.0.0.1 (all at once), yields them once each answers
  ``/health``, and stops them with SIGTERM at the end.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

__all__ = ["Server", "machine", "median_ms", "print_table", "running_servers"]


def median_ms(
    fn: Callable[[], object],
    *,
    repeat: int,
    setup: Callable[[], object] | None = None,
) -> float:
    """Return the median wall time of ``fn()`` over *repeat* runs, in milliseconds.

    *setup* runs before every repetition and is not timed (use it to clear
    caches so that each repetition is cold).
    """
    samples: list[float] = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print *rows* under *headers*, columns right-aligned to their widest cell."""
    widths = [
        max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=False)
    ]
    for line in (headers, *rows):
        print(" | ".join(str(cell).rjust(width) for cell, width in zip(line, widths, strict=True)))


def machine() -> str:
    """One line naming the interpreter, the OS and the CPU count."""
    return (
        f"Python {platform.python_version()} ({sys.implementation.name}), "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    )


class Server:
    """``python -m sglang.launch_server --model-path MODEL ARGS`` on a free port of 127.0.0.1."""

    def __init__(
        self, model: Path, args: Sequence[str] = (), env: Mapping[str, str] | None = None
    ) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "sglang.launch_server", "--model-path", str(model)]
        command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", *args]
        self.proc = subprocess.Popen(command, env={**os.environ, **(env or {})})

    def wait_healthy(self, timeout: float = 300.0) -> None:
        """Return once ``GET /health`` answers 200 (``RuntimeError`` if the server exits first)."""
        import httpx

        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with status {self.proc.returncode}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/health").status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.url} did not start in {timeout:.0f} s")
            time.sleep(0.2)

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server and its processes (the scheduler) used so far."""
        import psutil  # type: ignore[import-untyped]

        total = 0.0
        root = psutil.Process(self.proc.pid)
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    def stop(self) -> None:
        """SIGTERM, then wait for the exit (kill after a minute)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def running_servers(
    model: Path, configs: Mapping[str, Sequence[str]], env: Mapping[str, str] | None = None
) -> Iterator[dict[str, Server]]:
    """One :class:`Server` per name of *configs* (its extra flags), all up; stopped at the end.

    *env* is added to the servers' environment. A SIGTERM to the benchmark
    stops the servers too (it exits as for Ctrl-C).
    """
    servers: dict[str, Server] = {}
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for name, args in configs.items():
            servers[name] = Server(model, args, env)
        for server in servers.values():
            server.wait_healthy()
        yield servers
    finally:
        for server in servers.values():
            server.stop()
        signal.signal(signal.SIGTERM, previous)
