"""HTTP pieces both runtimes' servers share: errors, API keys, SSE, the uvicorn run.

Nothing here knows a runtime: the SRT server
(:mod:`sglang.srt.entrypoints.http_server`) and the diffusion server build
their FastAPI apps from these parts.

* :class:`APIError` and :func:`install_error_handlers`: every error leaves
  as the OpenAI error shape ``{"error": {"message", "type", "param",
  "code"}}``; request validation failures (malformed JSON, bad fields) are
  ``400 invalid_request_error``; :func:`parse_body` reads a JSON body into a
  pydantic model with the same errors;
* :class:`ApiKeyMiddleware`: ``Authorization: Bearer KEY`` on every path
  but the open ones (``/health``), else ``401``;
* :func:`sse_event` and :data:`SSE_DONE`: server-sent events;
* :func:`bind_socket` and :func:`serve`: take the address early (an
  address in use is :class:`AddressInUseError` before anything slow
  starts), run an app under uvicorn until SIGINT or SIGTERM, then
  return so the caller can stop its workers; :func:`stop_on_signals` turns
  those signals into a clean return around the whole server lifetime.

Every name loads on first access, so importing this package does not
import FastAPI or uvicorn.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.http.auth import ApiKeyMiddleware
    from sglang.runtime.http.errors import (
        APIError,
        error_body,
        error_response,
        install_error_handlers,
        parse_body,
    )
    from sglang.runtime.http.running import (
        AddressInUseError,
        ServerStopped,
        bind_socket,
        serve,
        stop_on_signals,
    )
    from sglang.runtime.http.sse import SSE_DONE, SSE_MEDIA_TYPE, sse_event

__all__ = [
    "SSE_DONE",
    "SSE_MEDIA_TYPE",
    "APIError",
    "AddressInUseError",
    "ApiKeyMiddleware",
    "ServerStopped",
    "bind_socket",
    "error_body",
    "error_response",
    "install_error_handlers",
    "parse_body",
    "serve",
    "sse_event",
    "stop_on_signals",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.runtime.http.auth": ("ApiKeyMiddleware",),
        "sglang.runtime.http.errors": (
            "APIError",
            "error_body",
            "error_response",
            "install_error_handlers",
            "parse_body",
        ),
        "sglang.runtime.http.running": (
            "AddressInUseError",
            "ServerStopped",
            "bind_socket",
            "serve",
            "stop_on_signals",
        ),
        "sglang.runtime.http.sse": ("SSE_DONE", "SSE_MEDIA_TYPE", "sse_event"),
    },
)
