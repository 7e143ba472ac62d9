"""Processes in tests: whether they have ended (``/proc``), free ports, shell sessions."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HAS_PROC", "free_port", "process_gone", "run_script_in_session", "wait_gone"]

HAS_PROC = Path("/proc").is_dir()
"""Whether this machine exposes process states in ``/proc``."""


def process_gone(pid: int) -> bool:
    """Whether process *pid* has exited (it no longer exists, or is a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def wait_gone(pids: Iterable[int], timeout: float) -> bool:
    """Wait up to *timeout* seconds for every one of *pids* to exit; return whether they did."""
    pending = list(pids)
    deadline = time.monotonic() + timeout
    while not all(map(process_gone, pending)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return all(map(process_gone, pending))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_script_in_session(
    script: str, *, env: dict[str, str], cwd: Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run *script* with ``bash -euc`` in a session of its own.

    Job control (``set -m``) works in it, and a run that hangs past
    *timeout* is killed with everything it started (its servers included),
    then reported as a test failure with its output.
    """
    import os
    import signal

    import pytest

    proc = subprocess.Popen(
        ["bash", "-euc", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the script did not finish in {timeout} s:\n{stdout}\n{stderr}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
