"""What every endpoint of the SRT HTTP server works with: :class:`ServingContext`."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from sglang.runtime.http import SSE_DONE, APIError, error_body, sse_event
from sglang.srt.entrypoints.async_engine import AsyncEngine, RequestStream
from sglang.srt.entrypoints.metrics import ServerMetrics
from sglang.srt.entrypoints.validation import InvalidRequestError, PromptItem
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions

__all__ = ["ServingContext", "created", "new_id"]


def new_id(prefix: str) -> str:
    """A fresh response id such as ``cmpl-0123abcd...``."""
    return f"{prefix}-{uuid.uuid4().hex}"


async def _disconnected(request: Request) -> None:
    """Return once the client of *request* (whose body was read) has gone away."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


@dataclass(frozen=True)
class ServingContext:
    """The engine, metrics and model name behind the endpoints.

    Attributes:
        engine: The engine, for coroutines.
        metrics: The server's metrics.
        model_name: The model id the API reports and accepts.
    """

    engine: AsyncEngine
    metrics: ServerMetrics
    model_name: str

    def check_model(self, model: str | None) -> None:
        """Refuse a request for another model than the one served (``404``)."""
        if model is not None and model != self.model_name:
            raise APIError(
                404,
                f"the model {model!r} is not served here; this server serves "
                f"{self.model_name!r} (see GET /v1/models)",
                param="model",
                code="model_not_found",
            )

    def open(
        self,
        endpoint: str,
        items: Sequence[PromptItem],
        options: Sequence[LogprobOptions],
        *,
        fields: Mapping[str, str] | None = None,
    ) -> list[RequestStream]:
        """Send every prompt's requests (``n`` each, prompt-major), or none.

        A bad parameter becomes ``400``, a failed engine ``503``. The
        ``400``'s ``param`` is the request body's name of the field at
        fault: *fields* maps the engine's names (``prompt``,
        ``max_new_tokens``, ...; see :mod:`sglang.srt.entrypoints.validation`)
        onto the body's; a name it lacks is kept.
        """
        try:
            streams = self.engine.open_many(items, options)
        except ValueError as exc:
            self.metrics.failed(endpoint)
            param = exc.param if isinstance(exc, InvalidRequestError) else None
            if param is not None:
                param = (fields or {}).get(param, param)
            raise APIError(400, str(exc), param=param) from None
        except RuntimeError as exc:
            self.metrics.failed(endpoint)
            raise APIError(503, str(exc)) from None
        for _ in streams:
            self.metrics.accepted(endpoint)
        return streams

    async def collect(
        self, streams: Sequence[RequestStream], request: Request
    ) -> list[list[RequestOutput]]:
        """Every output of each of *streams*; if the client goes away first, abort them all."""
        work = asyncio.ensure_future(asyncio.gather(*(self._drain(s) for s in streams)))
        watcher = asyncio.ensure_future(_disconnected(request))
        racing: set[asyncio.Future[Any]] = {work, watcher}
        try:
            await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            if not work.done():  # the client went away (or this task is being cancelled)
                work.cancel()  # each _drain closes its stream, which aborts its request
        if work.cancelled() or not work.done():
            with contextlib.suppress(asyncio.CancelledError):
                await work
            raise APIError(499, "the client closed the connection")
        try:
            return work.result()
        except RuntimeError as exc:
            raise APIError(503, str(exc)) from None

    async def _drain(self, stream: RequestStream) -> list[RequestOutput]:
        try:
            return [output async for output in stream]
        finally:
            stream.close()
            self.metrics.finished(stream)

    async def events(
        self,
        streams: Sequence[RequestStream],
        render: Callable[[int, RequestOutput], Iterable[object]],
        final: Callable[[list[RequestOutput | None]], Iterable[object]] = lambda _: (),
    ) -> AsyncIterator[str]:
        """The server-sent events of *streams*, merged as outputs arrive, then ``data: [DONE]``.

        ``render(index, output)`` gives the events of each output of
        ``streams[index]``, ``final(last outputs)`` those after the last one.
        Requests are aborted when the stream is closed before they finished
        (a client that disconnected), which frees their KV pages.
        """
        merged: asyncio.Queue[tuple[int, RequestOutput | BaseException | None]] = asyncio.Queue()

        async def pump(index: int, stream: RequestStream) -> None:
            try:
                async for output in stream:
                    merged.put_nowait((index, output))
                merged.put_nowait((index, None))
            except RuntimeError as exc:
                merged.put_nowait((index, exc))

        tasks = [asyncio.ensure_future(pump(i, s)) for i, s in enumerate(streams)]
        try:
            open_streams = len(streams)
            while open_streams:
                index, item = await merged.get()
                if item is None:
                    open_streams -= 1
                    continue
                if isinstance(item, BaseException):  # the scheduler failed mid-stream
                    yield sse_event(error_body(str(item), "server_error"))
                    break
                for event in render(index, item):
                    yield sse_event(event)
            else:
                for event in final([s.last for s in streams]):
                    yield sse_event(event)
        finally:
            for task in tasks:
                task.cancel()
            for stream in streams:
                stream.close()
                self.metrics.finished(stream)
        yield SSE_DONE


def created() -> int:
    """The ``created`` timestamp of a response (seconds since the epoch)."""
    return int(time.time())
