"""What an operator sees while the SRT server starts: checks first, then the start-up lines.

:func:`preflight` runs before any scheduler process is spawned: it checks
the server arguments, resolves the model path (a directory, or a Hugging
Face id in the local cache, see :mod:`sglang.srt.configs.model_path`) and
binds the HTTP address. Each failure is one :class:`StartupError` whose
message says what is wrong and how to fix it; the command lines print it
as one line (the traceback only with ``--log-level debug``), through
:func:`command_line`.

``--log-level`` applies to the runtime's loggers (everything under
``sglang``, in the scheduler processes too: see
:func:`sglang.runtime.logs.configure_logging`), and :func:`log_startup` writes, at
INFO, the selected platform and why, the model, its dtype and
tensor-parallel size, the KV cache in tokens and pages, the context
length and the address.

Importing this module imports neither torch nor the HTTP stack.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket
    from collections.abc import Iterator

    from sglang.srt.entrypoints.engine import Engine
    from sglang.srt.server_args import ServerArgs

__all__ = [
    "SGLANG_HEALTH_CHECK_TIMEOUT",
    "StartupError",
    "command_line",
    "health_check_timeout",
    "log_startup",
    "preflight",
]

SGLANG_HEALTH_CHECK_TIMEOUT = "SGLANG_HEALTH_CHECK_TIMEOUT"
"""Seconds ``/health_generate`` waits for the scheduler before answering 503 (default 20)."""

_LOGGER = "sglang.srt.entrypoints.http_server"


class StartupError(Exception):
    """The server cannot start: a bad argument, a bad model path, an address in use.

    The message is one line naming the flag or path at fault and the fix.
    """


@contextlib.contextmanager
def command_line(prog: str, log_level: str, *, leave: bool = False) -> Iterator[None]:
    """Run a server command line's body: start-up errors become one line, exit status 1.

    Logging is configured at *log_level* first. A :class:`StartupError`
    leaves as ``SystemExit("PROG: error: MESSAGE")`` (Python, or ``sglang
    serve``, prints it to stderr); its traceback is logged at DEBUG. With
    *leave*, the process ends as soon as the body
    returned (:func:`~sglang.runtime.process_exit.exit_now`): the server
    has stopped, and the interpreter's teardown of torch would only delay
    the exit.
    """
    import logging

    from sglang.runtime.logs import configure_logging

    configure_logging(log_level)
    try:
        yield
    except StartupError as exc:
        logging.getLogger(_LOGGER).debug("the server did not start", exc_info=True)
        raise SystemExit(f"{prog}: error: {exc}") from None
    if leave:
        from sglang.runtime.process_exit import exit_now

        exit_now(0)


def health_check_timeout() -> float:
    """:data:`SGLANG_HEALTH_CHECK_TIMEOUT` in seconds (upstream's variable and default, 20).

    Raises:
        StartupError: It is set but not a positive number.
    """
    import os

    raw = os.environ.get(SGLANG_HEALTH_CHECK_TIMEOUT, "20")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise StartupError(
            f"{SGLANG_HEALTH_CHECK_TIMEOUT} must be a positive number of seconds, got {raw!r}"
        )
    return value


def preflight(server_args: ServerArgs) -> socket.socket:
    """Check *server_args*, resolve the model path and bind the address; return the socket.

    Runs in well under a second and spawns nothing, so that a mistake is
    reported before the schedulers load the model. The model and tokenizer
    paths are replaced by the local folders they name (in place).

    Raises:
        StartupError: The first problem found (see the module docstring).
    """
    from sglang.runtime.http.running import AddressInUseError, bind_socket
    from sglang.srt.configs.model_path import resolve_model_paths

    health_check_timeout()
    try:
        server_args.check_server_args()
        resolve_model_paths(server_args)
        return bind_socket(server_args.host, server_args.port)
    except (ValueError, AddressInUseError) as exc:
        raise StartupError(str(exc)) from exc


def _platform_line() -> str:
    from sglang.srt.platforms import get_selection_report

    report = get_selection_report()
    source = (
        "built-in"
        if report.platform_dist is None
        else f"entry point {report.platform_entry_point} from {report.platform_dist}"
    )
    return f"SRT platform: {report.platform_class} ({source}); why: {report.reason}"


def log_startup(server_args: ServerArgs, engine: Engine, info: dict[str, object]) -> None:
    """Log the start-up lines at INFO (see the module docstring).

    Args:
        server_args: The server's (resolved) arguments.
        engine: The running engine.
        info: The scheduler's state (:meth:`Engine.get_server_info`).
    """
    import logging

    log = logging.getLogger(_LOGGER)
    log.info("%s", _platform_line())
    name = server_args.served_model_name or server_args.model_path
    log.info(
        "model %s (served as %r): dtype %s, tp-size %d",
        server_args.model_path,
        name,
        info.get("dtype", server_args.dtype),
        server_args.tp_size,
    )
    log.info(
        "KV cache: %d tokens in %s pages of %d tokens; context length %d; max running requests %s",
        engine.max_total_tokens,
        info.get("total_pages"),
        server_args.page_size,
        engine.context_length,
        info.get("max_running_requests"),
    )
    log.info("serving %s on http://%s:%d", name, server_args.host, server_args.port)
