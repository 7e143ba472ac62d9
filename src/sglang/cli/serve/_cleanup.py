"""The core CLI owns child cleanup: the process tree a backend started ends with it.

:func:`owned_process_tree` wraps a backend's ``run()``. SIGTERM (and
SIGINT, as :class:`KeyboardInterrupt`) unwind ``run()`` as a
:class:`Terminated` exception; on every way out (normal return, exception,
signal) every descendant process that appeared during ``run()`` gets
SIGTERM, then SIGKILL once :data:`GRACE_SECONDS` have passed. On Linux the
process also becomes a child subreaper, so grandchildren whose parent died
first are re-parented here and still counted. Processes are found and
signalled with :mod:`psutil`. :mod:`multiprocessing`'s resource tracker
is the exception: it ignores SIGTERM and SIGINT by design, so it is
stopped its own way (its pipe closed) once the others are gone, instead
of being killed after the grace period.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType

from sglang.cli.serve._errors import ServeError

__all__ = ["GRACE_SECONDS", "Terminated", "owned_process_tree", "terminate_tree"]

GRACE_SECONDS = 5.0
"""How long descendants get between SIGTERM and SIGKILL."""

_PR_SET_CHILD_SUBREAPER = 36


class Terminated(BaseException):
    """Raised in the main thread when ``sglang serve`` receives SIGTERM.

    A :class:`BaseException`, like :class:`KeyboardInterrupt`, so that a
    backend's ``except Exception`` does not swallow it.

    Attributes:
        signum: The signal received.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"received signal {signum}")
        self.signum = signum


def _require_psutil() -> None:
    """Fail early, before the backend starts anything, when psutil is missing."""
    import importlib.util

    if (
        importlib.util.find_spec("psutil") is None
    ):  # pragma: no cover - psutil ships with the serve extra
        raise ServeError(
            "sglang serve needs psutil to clean up the processes a backend starts: "
            "pip install 'sglang[serve]'",
            exit_code=1,
        )


def _become_subreaper() -> None:
    """Adopt orphaned descendants (Linux only; elsewhere nothing happens)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def terminate_tree(exclude: frozenset[int] = frozenset(), grace: float = GRACE_SECONDS) -> int:
    """End every descendant of this process but *exclude*; return how many there were.

    Each gets SIGTERM; those still alive after *grace* seconds get SIGKILL.
    """
    import psutil  # type: ignore[import-untyped]

    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:  # pragma: no cover - this process always exists
        return 0
    procs = [proc for proc in children if proc.pid not in exclude]
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)
    return len(procs)


def _resource_tracker_pid() -> int | None:
    """The pid of the resource tracker this process started through :mod:`multiprocessing`."""
    module = sys.modules.get("multiprocessing.resource_tracker")
    pid = getattr(getattr(module, "_resource_tracker", None), "_pid", None)
    return pid if isinstance(pid, int) else None


def _stop_resource_tracker() -> None:
    """Close the resource tracker's pipe and wait for it (it then cleans up and exits)."""
    module = sys.modules.get("multiprocessing.resource_tracker")
    stop = getattr(getattr(module, "_resource_tracker", None), "_stop", None)
    if callable(stop):
        with contextlib.suppress(Exception):
            stop()


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def _has_children() -> bool:
    """Whether this process has a child, running or exited, without reaping it.

    A cheap standard-library check, so that a run that started nothing (a
    ``--help``) does not pay for importing :mod:`psutil`. Where ``waitid``
    is missing the answer is always ``True``.
    """
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - not POSIX
        return True
    try:
        waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


@contextlib.contextmanager
def owned_process_tree(grace: float = GRACE_SECONDS) -> Iterator[None]:
    """Run the body with SIGTERM unwinding it, then end the processes it started.

    The caller is a command-line process: every descendant alive when the
    body ends is taken to have been started by it.
    """
    _require_psutil()
    _become_subreaper()
    previous = signal.getsignal(signal.SIGTERM)
    if previous is None:  # set outside Python: restore the default
        previous = signal.SIG_DFL
    in_main = _main_thread()
    if in_main:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        old_int = signal.getsignal(signal.SIGINT)
        if in_main:
            # a second signal during cleanup must not abandon the children
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            if _has_children():
                tracker = _resource_tracker_pid()
                terminate_tree(frozenset(() if tracker is None else (tracker,)), grace=grace)
                if tracker is not None:
                    _stop_resource_tracker()
        finally:
            if in_main:
                signal.signal(signal.SIGTERM, previous)
                signal.signal(signal.SIGINT, old_int or signal.SIG_DFL)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
