"""Running an app: :func:`serve` under uvicorn, :func:`stop_on_signals` around a server's life.

:func:`bind_socket` takes the server's address before anything slow
starts, so that an address already in use fails at once (as
:class:`AddressInUseError`), and :func:`serve` then listens on that socket.

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
import socket
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["AddressInUseError", "ServerStopped", "bind_socket", "serve", "stop_on_signals"]

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


class AddressInUseError(OSError):
    """The server's address cannot be bound (another process listens there, or it is invalid)."""


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind a TCP socket to *host*:*port* for :func:`serve` (it starts listening there).

    The socket is bound but not yet listening: until :func:`serve` runs,
    connection attempts are refused rather than left waiting. As uvicorn
    does, ``SO_REUSEADDR`` is set, so a port whose previous server just
    exited can be bound again, but one that a process listens on cannot.

    Raises:
        AddressInUseError: The address is taken or cannot be bound (the
            message names it and says how to fix it).
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise AddressInUseError(f"cannot listen on {host}:{port}: {exc} (check --host)") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise AddressInUseError(
            f"cannot listen on {host}:{port}: {reason.lower()} (another server is running "
            f"there?); stop it or choose another --port"
        ) from exc
    sock.set_inheritable(False)
    return sock


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
    sock: socket.socket | None = None,
) -> None:
    """Serve the ASGI *app* on *host*:*port* under uvicorn until SIGINT or SIGTERM.

    Open requests get *graceful_timeout* seconds to finish once a signal
    arrived; streams still open then are cancelled. Access logs are
    written at ``log_level="debug"`` only. With *sock* (from
    :func:`bind_socket`) uvicorn listens on it instead of binding
    *host*:*port* itself.

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
    uvicorn.Server(config).run(sockets=None if sock is None else [sock])
