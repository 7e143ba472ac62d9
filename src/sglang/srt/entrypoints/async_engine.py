"""The :class:`~sglang.srt.entrypoints.engine.Engine` for asyncio code: :class:`AsyncEngine`.

The engine's receiver thread hands each output to the request's sink;
here the sink puts it on an :class:`asyncio.Queue` of the event loop that
opened the request (``loop.call_soon_threadsafe``), so coroutines await
outputs without blocking the loop and without a thread per request. A
:class:`RequestStream` closed before its request finished (a client that
went away) aborts the request, which frees its KV pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions

if TYPE_CHECKING:
    from sglang.srt.entrypoints.engine import Engine
    from sglang.srt.entrypoints.validation import PromptItem

__all__ = ["AsyncEngine", "RequestStream"]


class RequestStream:
    """The outputs of one request, to ``async for`` over; :meth:`close` it when done.

    Attributes:
        rid: The request id.
        started: ``time.perf_counter()`` when it was sent.
        first_output_at: When the first output arrived (``None`` before).
        token_gaps: Seconds between consecutive outputs, per token they carried
            (the inter-token latencies).
        last: The latest output (``None`` before the first).
    """

    def __init__(self, engine: Engine, loop: asyncio.AbstractEventLoop) -> None:
        self._engine = engine
        self._loop = loop
        self._queue: asyncio.Queue[RequestOutput | BaseException] = asyncio.Queue()
        self.rid = ""
        self.started = time.perf_counter()
        self.first_output_at: float | None = None
        self._last_output_at = 0.0
        self.token_gaps: list[float] = []
        self.last: RequestOutput | None = None
        self._closed = False

    def sink(self, item: RequestOutput | BaseException) -> None:
        """Hand *item* to the event loop (called on the engine's receiver thread)."""
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    @property
    def finished(self) -> bool:
        """Whether the last output carried a finish reason."""
        return self.last is not None and self.last.finish_reason is not None

    def __aiter__(self) -> RequestStream:
        return self

    async def __anext__(self) -> RequestOutput:
        if self.finished or self._closed:
            raise StopAsyncIteration
        item = await self._queue.get()
        if isinstance(item, BaseException):
            raise RuntimeError(f"the engine's scheduler failed: {item}") from item
        now = time.perf_counter()
        if self.first_output_at is None:
            self.first_output_at = now
        elif item.output_ids:
            gap = (now - self._last_output_at) / len(item.output_ids)
            self.token_gaps.extend([gap] * len(item.output_ids))
        self._last_output_at = now
        self.last = item
        return item

    def close(self) -> None:
        """Stop receiving; abort the request (freeing its KV pages) if it has not finished."""
        if self._closed:
            return
        self._closed = True
        self._engine.release(self.rid)
        if not self.finished:
            self._engine.abort(self.rid)


class AsyncEngine:
    """Open requests on *engine* from coroutines.

    Args:
        engine: A running engine (this object does not own it).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def open(
        self,
        prompt: str | None = None,
        sampling_params: Mapping[str, object] | None = None,
        input_ids: Sequence[int] | None = None,
        return_logprob: bool = False,
        rid: str | None = None,
    ) -> RequestStream:
        """Check and send one request from the running event loop; return its stream.

        *rid* names the request (default: a fresh id; one in flight is refused).

        Raises:
            ValueError: A bad parameter (the message names it); nothing was sent.
            RuntimeError: The engine was shut down or its scheduler failed.
        """
        stream = RequestStream(self.engine, asyncio.get_running_loop())
        stream.rid = self.engine.submit(
            prompt, sampling_params, input_ids, return_logprob, sink=stream.sink, rid=rid
        )
        return stream

    def open_many(
        self, items: Sequence[PromptItem], options: Sequence[LogprobOptions]
    ) -> list[RequestStream]:
        """Check and send every prompt's requests (``n`` each, prompt-major); one stream each.

        Nothing is sent when any of them is refused.

        Raises:
            ValueError: A bad prompt, parameter, option or id (an
                :class:`~sglang.srt.entrypoints.validation.InvalidRequestError`
                naming it).
            RuntimeError: The engine was shut down or its scheduler failed.
        """
        loop = asyncio.get_running_loop()
        requests = self.engine.tokenizer_manager.prepare(items, options)
        streams = [RequestStream(self.engine, loop) for _ in requests]
        for stream, request in zip(streams, requests, strict=True):
            stream.rid = request.rid
        self.engine.submit_requests(requests, [stream.sink for stream in streams])
        return streams

    async def collect(self, stream: RequestStream) -> list[RequestOutput]:
        """Every output of *stream* until it finishes (closing it in any case)."""
        try:
            return [output async for output in stream]
        finally:
            stream.close()

    async def get_server_info(self) -> dict[str, object]:
        """The scheduler's state (free KV pages, queue lengths), without blocking the loop."""
        return await asyncio.to_thread(self.engine.get_server_info)

    async def flush_cache(self) -> None:
        """:meth:`Engine.flush_cache` without blocking the loop."""
        await asyncio.to_thread(self.engine.flush_cache)
