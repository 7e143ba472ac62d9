"""Ending a process without the interpreter's teardown: :func:`exit_now`.

Once torch is imported, the interpreter's own teardown (freeing every
module) takes about a second, longer with a model loaded; a server that
has already stopped its work should not make its operator wait for it.
:func:`exit_now` keeps what a normal exit guarantees to Python code (non-daemon
threads are waited for, ``atexit`` handlers and :mod:`multiprocessing`'s
finalizers run, the standard streams are flushed) and leaves the rest to
the operating system.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["exit_now"]


def exit_now(code: int = 0) -> None:
    """End this process with *code* as a normal exit would, minus the interpreter's teardown."""
    import atexit

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # multiprocessing's finalizers are one of them
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
