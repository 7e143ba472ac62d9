"""Worker targets and start-up steps for the spawn-bootstrap tests.

Steps append a line to the file named by ``BOOTSTRAP_EVENTS`` so the test
sees their order; targets report through the worker's connection.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import time
from dataclasses import dataclass

from sglang.runtime.bootstrap import Worker

PARENT_STATE = "default"
"""A forked child would see the parent's value; a spawned one sees this."""


@dataclass(frozen=True)
class Args:
    """A stand-in for server arguments."""

    value: int


def _event(text: str) -> None:
    with open(os.environ["BOOTSTRAP_EVENTS"], "a", encoding="utf-8") as handle:
        handle.write(text + "\n")


def step_one() -> None:
    """Record the step and what was imported before any step ran."""
    early = sorted(name for name in sys.modules if name.startswith(("sglang.srt", "torch")))
    _event(f"step_one {','.join(early) or '-'}")


def step_two() -> None:
    """Record the step."""
    _event("step_two")


def step_fail() -> None:
    """A start-up step that fails, like a broken init_backend()."""
    raise RuntimeError("demo firmware missing")


def describe(args: Args) -> str:
    """What :func:`serve` reports; plugins hook it in the tests."""
    return f"value {args.value}"


def serve(args: Args, worker: Worker) -> None:
    """Report readiness, then echo messages until ``"stop"``."""
    worker.ready(
        {
            "pid": os.getpid(),
            "rank": worker.rank,
            "describe": describe(args),
            "parent_state": PARENT_STATE,
        }
    )
    while True:
        message = worker.conn.recv()
        if message == "stop":
            return
        worker.conn.send(("echo", message))


def explode(args: Args, worker: Worker) -> None:
    """Fail inside the target."""
    raise ValueError(f"rank {worker.rank} cannot serve value {args.value}")


def vanish(args: Args, worker: Worker) -> None:
    """Die without a word."""
    os._exit(7)


def hang_up(args: Args, worker: Worker) -> None:
    """Close the connection to the parent without a word, then keep running."""
    worker.conn.close()
    time.sleep(600)


def linger(args: Args, worker: Worker) -> None:
    """Report the pid, then wait to be stopped."""
    worker.ready(os.getpid())
    time.sleep(600)


def log_and_leave(args: Args, worker: Worker) -> None:
    """Log one record per level on an ``sglang`` logger, register an exit handler, return."""
    log = logging.getLogger("sglang.test.worker")
    for level in ("debug", "info", "warning"):
        getattr(log, level)("worker record at %s", level)
    atexit.register(_event, "atexit ran")
    worker.ready(os.getpid())
