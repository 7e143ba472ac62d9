"""The parent's side: start workers with a local spawn context and watch them.

:class:`WorkerGroup` starts one process per :class:`WorkerSpec` with
``multiprocessing.get_context("spawn")``, whatever start method the
embedding application set globally, and gives each a duplex connection.
Every wait watches the connection *and* the process, so a worker that
reports a failure, or dies without a word, raises :class:`WorkerFailedError`
in the parent instead of leaving it waiting. The group shuts its workers
down on :meth:`~WorkerGroup.shutdown`, on leaving a ``with`` block and at
interpreter exit; workers end themselves when the parent dies.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
import weakref
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import TracebackType

from sglang.runtime.bootstrap.child import FAILED, READY, worker_main
from sglang.runtime.bootstrap.spec import WorkerSpec

__all__ = ["WorkerFailedError", "WorkerGroup", "local_rendezvous_address"]

_GRACE = 5.0


class WorkerFailedError(RuntimeError):
    """A worker reported a failure or exited; the message carries its own error.

    Attributes:
        name: The worker's name.
        rank: Its rank.
        exitcode: Its exit status, or ``None`` while it still runs.
        stage: What it was doing when it failed (``None`` if it said nothing).
        child_traceback: The traceback formatted in the child (``""`` if none).
    """

    def __init__(
        self,
        message: str,
        *,
        name: str,
        rank: int,
        exitcode: int | None,
        stage: str | None = None,
        child_traceback: str = "",
    ) -> None:
        super().__init__(message)
        self.name = name
        self.rank = rank
        self.exitcode = exitcode
        self.stage = stage
        self.child_traceback = child_traceback


_live: weakref.WeakSet[WorkerGroup] = weakref.WeakSet()


@atexit.register
def _shutdown_live_groups() -> None:
    for group in list(_live):
        group.shutdown()


class WorkerGroup:
    """Worker processes started from :class:`WorkerSpec` objects.

    Args:
        specs: One spec per worker; their ranks index :meth:`recv` and :meth:`send`.
    """

    def __init__(self, specs: Sequence[WorkerSpec]) -> None:
        ranks = [spec.rank for spec in specs]
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"worker ranks must be unique, got {ranks}")
        self.specs = {spec.rank: spec for spec in specs}
        self.processes: dict[int, BaseProcess] = {}
        self.connections: dict[int, Connection] = {}
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> WorkerGroup:
        """Spawn every worker (a local spawn context) and return the group."""
        context = multiprocessing.get_context("spawn")
        parent = os.getpid()
        _live.add(self)
        for rank, spec in self.specs.items():
            ours, theirs = context.Pipe(duplex=True)
            process = context.Process(
                target=worker_main, args=(spec, theirs, parent), name=spec.name, daemon=False
            )
            process.start()
            theirs.close()
            self.processes[rank] = process
            self.connections[rank] = ours
        return self

    # -- waiting ---------------------------------------------------------------------

    def _failure(self, rank: int, report: object = None) -> WorkerFailedError:
        spec = self.specs[rank]
        process = self.processes[rank]
        if isinstance(report, dict):
            stage = str(report.get("stage"))
            child_tb = str(report.get("traceback", ""))
            process.join(_GRACE)
            return WorkerFailedError(
                f"{spec.name} (pid {process.pid}) failed while {stage}: {report.get('error')}\n"
                f"--- traceback in {spec.name}\n{child_tb}",
                name=spec.name,
                rank=rank,
                exitcode=process.exitcode,
                stage=stage,
                child_traceback=child_tb,
            )
        process.join(_GRACE)
        if process.exitcode is None:  # its end of the connection closed, not the process
            what = (
                f"closed its connection to the launcher without reporting an error and is "
                f"still running {_GRACE:g} s later (a library in it closed a file descriptor "
                f"it did not own?)"
            )
        else:
            what = (
                f"exited with status {process.exitcode} without reporting an error (killed "
                f"by a signal, out of memory, or os._exit)"
            )
        return WorkerFailedError(
            f"{spec.name} (pid {process.pid}) {what}; its stderr may say more.",
            name=spec.name,
            rank=rank,
            exitcode=process.exitcode,
        )

    def recv(self, rank: int, timeout: float | None = None) -> object:
        """Return the next message from worker *rank*.

        Raises:
            WorkerFailedError: The worker reported a failure, or exited
                before a message arrived.
            TimeoutError: Nothing arrived within *timeout* seconds.
        """
        conn = self.connections[rank]
        process = self.processes[rank]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = wait([conn, process.sentinel], remaining)
            if conn in ready:
                try:
                    message: object = conn.recv()
                except EOFError:
                    raise self._failure(rank) from None
                if isinstance(message, tuple) and len(message) == 2 and message[0] == FAILED:
                    raise self._failure(rank, message[1])
                return message
            if process.sentinel in ready:
                if conn.poll():  # its last words arrived together with its exit
                    continue
                raise self._failure(rank)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"{self.specs[rank].name} sent nothing within {timeout:g} s")

    def send(self, rank: int, message: object) -> None:
        """Send *message* to worker *rank*."""
        self.connections[rank].send(message)

    def wait_ready(self, timeout: float | None = None) -> dict[int, object]:
        """Wait until every worker called ``Worker.ready()``; return what each reported.

        Raises:
            WorkerFailedError: A worker failed or exited first (the others
                are shut down).
            TimeoutError: Not every worker was ready within *timeout* seconds.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        infos: dict[int, object] = {}
        try:
            for rank in self.specs:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                message = self.recv(rank, remaining)
                if not (isinstance(message, tuple) and len(message) == 2 and message[0] == READY):
                    raise RuntimeError(
                        f"{self.specs[rank].name} sent {message!r} before it was ready"
                    )
                infos[rank] = message[1]
        except BaseException:
            self.shutdown()
            raise
        return infos

    # -- stopping --------------------------------------------------------------------

    def join(self, timeout: float) -> bool:
        """Wait up to *timeout* seconds for every worker to exit; return whether all did."""
        deadline = time.monotonic() + timeout
        for process in self.processes.values():
            process.join(max(0.0, deadline - time.monotonic()))
        return not any(process.is_alive() for process in self.processes.values())

    def stop(self, grace: float = _GRACE) -> None:
        """End every worker: terminate, wait up to *grace* seconds, then kill.

        The connections stay open, so a thread still inside :meth:`recv`
        returns (the worker's exit ends its wait) before :meth:`shutdown`
        closes them: a connection closed under a reading thread frees its
        file descriptor number for the next pipe this process opens, and
        that thread would then read another group's messages.
        """
        for process in self.processes.values():
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + grace
        for process in self.processes.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()

    def shutdown(self, grace: float = _GRACE) -> None:
        """:meth:`stop` the workers, then close the connections. Idempotent.

        Call it once no other thread is inside :meth:`recv` (see :meth:`stop`).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        _live.discard(self)
        self.stop(grace)
        for conn in self.connections.values():
            conn.close()

    def __enter__(self) -> WorkerGroup:
        return self.start() if not self.processes else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown()

    def __repr__(self) -> str:
        alive = sum(process.is_alive() for process in self.processes.values())
        return f"<WorkerGroup {len(self.specs)} workers, {alive} alive>"


def local_rendezvous_address() -> str:
    """``127.0.0.1:PORT`` with a port nothing listens on: where one machine's workers meet.

    Both runtimes use it as ``--dist-init-addr`` when several local ranks
    need a ``torch.distributed`` rendezvous and none was given.
    """
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"
