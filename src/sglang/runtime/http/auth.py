"""The API-key check: :class:`ApiKeyMiddleware`.

A pure ASGI middleware (not Starlette's ``BaseHTTPMiddleware``), so
streamed responses pass through untouched.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from sglang.runtime.http.errors import error_body

__all__ = ["ApiKeyMiddleware"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ApiKeyMiddleware:
    """Require ``Authorization: Bearer KEY`` on every HTTP path but *open_paths*.

    A missing or wrong key is answered ``401`` with the OpenAI error body
    (``type: authentication_error``, ``code: invalid_api_key``). Keys are
    compared in constant time.

    Args:
        app: The ASGI app to guard.
        api_key: The key clients must send.
        open_paths: Paths served without a key (default ``/health``).
    """

    def __init__(
        self, app: ASGIApp, api_key: str, open_paths: Iterable[str] = ("/health",)
    ) -> None:
        self.app = app
        self._expected = f"Bearer {api_key}".encode()
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer ``401``."""
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"authorization", b"")
        if hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        reason = "a wrong API key" if given else "no API key"
        body = error_body(
            f"the request has {reason}: send the header 'Authorization: Bearer KEY' with the "
            f"key the server was started with (--api-key)",
            "authentication_error",
            code="invalid_api_key",
        )
        payload = json.dumps(body).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"www-authenticate", b"Bearer"),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": payload})
