"""The spawn target: what every worker process runs, in order.

:func:`worker_main` is the :class:`multiprocessing.Process` target. It
imports no runtime module at module scope, so that unpickling the process
imports nothing but this module and the standard library. In the child it

1. configures its logging (the spec's ``log_level``) and starts a watchdog
   that ends the process when its parent is gone;
2. warns, naming them, about watched runtime modules that are already
   imported (spawn re-runs the launching script's module scope first);
3. runs the spec's steps in order (platform initialisation, plugin
   registration, hook application);
4. materialises the payload (the server arguments);
5. resolves the target by its dotted path, so a hooked target is the one
   found, and calls it with the payload and a :class:`Worker`;
6. once the target returned, runs the process's exit handlers and ends at
   once (:func:`~sglang.runtime.process_exit.exit_now`): the interpreter's own teardown, which takes
   seconds once torch and a model are loaded, would delay every shutdown.

Any failure is sent to the parent as one message carrying the stage, the
error and the formatted traceback before the process exits with status 1,
so the parent raises with the child's own error instead of waiting.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from multiprocessing.connection import Connection

from sglang.runtime.bootstrap.spec import WorkerSpec, _resolve

__all__ = ["FAILED", "LOGGER_NAME", "READY", "Worker", "worker_main"]

READY = "ready"
"""Message tag: the worker is up; the second item is what it reported."""

FAILED = "failed"
"""Message tag: the worker failed; the second item is a dict (stage, error, traceback)."""

LOGGER_NAME = "sglang.runtime.bootstrap"
"""The logger workers warn on (stderr when nothing is configured)."""

_WATCHDOG_PERIOD = 0.2


class Worker:
    """The worker's side of its connection, handed to the target.

    Attributes:
        name: The spec's name.
        rank: The worker's rank.
        conn: The connection to the parent, for the target's own protocol.
    """

    def __init__(self, spec: WorkerSpec, conn: Connection) -> None:
        self.name = spec.name
        self.rank = spec.rank
        self.conn = conn

    def ready(self, info: object = None) -> None:
        """Tell the parent the worker is up; *info* reaches ``WorkerGroup.wait_ready()``."""
        self.conn.send((READY, info))

    def __repr__(self) -> str:
        return f"<Worker {self.name!r} rank {self.rank} pid {os.getpid()}>"


def _watch_parent(parent_pid: int) -> None:
    """End this process as soon as its parent has exited (it was re-parented)."""
    while os.getppid() == parent_pid:
        time.sleep(_WATCHDOG_PERIOD)
    os._exit(1)


def _already_imported(prefixes: tuple[str, ...]) -> list[str]:
    return sorted(
        name
        for name in list(sys.modules)
        if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)
    )


def _warn_imported(spec: WorkerSpec, names: list[str]) -> None:
    import logging

    logging.getLogger(LOGGER_NAME).warning(
        "%s started with runtime modules already imported: %s. They were imported before "
        "the platform was initialised and plugin hooks were applied (usually at the module "
        "scope of the launching script, which spawn runs again in every child): hooks can "
        "still patch their functions, but classes and registrations made while they were "
        "imported are out of the hooks' reach. Fix: move those imports under "
        "'if __name__ == \"__main__\":' or into the functions that use them.",
        spec.name,
        ", ".join(names),
    )


def _fail(conn: Connection, spec: WorkerSpec, stage: str, exc: BaseException) -> None:
    import traceback

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()
    report = {"stage": stage, "error": f"{type(exc).__name__}: {exc}", "traceback": text}
    with contextlib.suppress(OSError):  # the parent is gone; stderr still has it
        conn.send((FAILED, report))
    print(f"{spec.name} failed while {stage}:\n{text}", file=sys.stderr, flush=True)


def worker_main(spec: WorkerSpec, conn: Connection, parent_pid: int) -> None:
    """Run one worker: watchdog, steps, payload, target (see the module docstring).

    The worker ignores SIGINT: Ctrl-C in a terminal reaches the whole
    foreground process group, and the launcher owns the shutdown (it asks
    its workers to stop, then terminates what is left); a launcher that dies
    still takes its workers down through the watchdog.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if spec.log_level is not None:
        from sglang.runtime.logs import configure_logging

        configure_logging(spec.log_level)
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="sglang-parent-watchdog", daemon=True
    ).start()
    imported = _already_imported(spec.watched_modules)
    if imported:
        _warn_imported(spec, imported)
    stage = "starting"
    try:
        for step in spec.steps:
            stage = f"running start-up step {step}"
            function = _resolve(step)
            if not callable(function):
                raise TypeError(f"start-up step {step} is a {type(function).__name__}")
            function()
        stage = f"materialising its arguments ({spec.payload.type_path})"
        args = spec.payload.materialise()
        stage = f"resolving its target {spec.target}"
        target = _resolve(spec.target)
        if not callable(target):
            raise TypeError(f"worker target {spec.target} is a {type(target).__name__}")
        stage = f"running {spec.target}"
        target(args, Worker(spec, conn))
    except SystemExit as exc:
        if exc.code not in (0, None):
            _fail(conn, spec, stage, exc)
        raise
    except BaseException as exc:
        _fail(conn, spec, stage, exc)
        sys.exit(1)
    from sglang.runtime.process_exit import exit_now

    exit_now(0)
