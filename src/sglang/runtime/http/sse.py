"""Server-sent events: :func:`sse_event` and :data:`SSE_DONE`."""

from __future__ import annotations

import json

__all__ = ["SSE_DONE", "SSE_MEDIA_TYPE", "sse_event"]

SSE_MEDIA_TYPE = "text/event-stream"
"""The media type of an event stream."""

SSE_DONE = "data: [DONE]\n\n"
"""The event that ends an OpenAI-style stream."""


def sse_event(data: object) -> str:
    """One ``data:`` event holding *data* as compact JSON."""
    return f"data: {json.dumps(data, separators=(',', ':'), ensure_ascii=False)}\n\n"
