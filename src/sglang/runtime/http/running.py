"""Running an app: :func:`serve` under uvicorn, :func:`stop_on_signals` around a server's life.

A server's lifetime is: start its workers, serve HTTP until SIGINT (Ctrl-C)
or SIGTERM, stop the workers. uvicorn handles the signal while it serves
(it stops accepting connections and lets open ones finish, for at most
the graceful timeout) and then raises the signal again once it has
returned; :func:`stop_on_signals` catches that, and a signal that arrives
while the workers are still starting, as :class:`ServerStopped`, so the
caller's ``finally`` blocks stop the workers::

    with stop_on_signals():
        workers = start_workers()
        try:
            serve(app, host=host, port=port)
        finally:
            workers.shutdown()
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["ServerStopped", "serve", "stop_on_signals"]

_log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a server cleanly."""


class ServerStopped(Exception):
    """Raised in the main thread by SIGINT or SIGTERM inside :func:`stop_on_signals`.

    Attributes:
        signum: The signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Turn the first SIGINT or SIGTERM into :class:`ServerStopped`, and leave quietly.

    Later signals are ignored until the block ends, so the cleanup that
    the first one started is not interrupted. Outside the main thread
    (where signals cannot be handled) the block runs unchanged.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _stop(signum: int, frame: FrameType | None) -> None:
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise ServerStopped(signum)

    previous = {sig: signal.signal(sig, _stop) for sig in SIGNALS}
    try:
        yield
    except ServerStopped as stopped:
        _log.info("server %s; shut down", stopped)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(
    app: Any,
    *,
    host: str,
    port: int,
    log_level: str = "info",
    graceful_timeout: float = 5.0,
) -> None:
    """Serve the ASGI *app* on *host*:*port* under uvicorn until SIGINT or SIGTERM.

    Open requests get *graceful_timeout* seconds to finish once a signal
    arrived; streams still open then are cancelled. Access logs are
    written at ``log_level="debug"`` only.

    Raises:
        SystemExit: uvicorn could not bind the address (it logs why).
    """
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=log_level == "debug",
        timeout_graceful_shutdown=max(1, round(graceful_timeout)),
        lifespan="off",
    )
    uvicorn.Server(config).run()
