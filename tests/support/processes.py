"""Whether processes have ended, read from ``/proc`` (Linux)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HAS_PROC", "process_gone", "wait_gone"]

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
