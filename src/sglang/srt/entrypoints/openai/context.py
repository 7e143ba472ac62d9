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
from sglang.srt.entrypoints.validation import InvalidRequestError
from sglang.srt.managers.io_struct import RequestOutput

__all__ = ["ServingContext", "finish_reason", "new_id", "usage"]


def new_id(prefix: str) -> str:
    """A fresh response id such as ``cmpl-0123abcd...``."""
    return f"{prefix}-{uuid.uuid4().hex}"


def finish_reason(output: RequestOutput | None) -> str | None:
    """OpenAI's ``finish_reason`` (``stop``, ``length``, ``abort``) of a final output."""
    if output is None or output.finish_reason is None:
        return None
    return str(output.finish_reason.get("type"))


def usage(output: RequestOutput | None) -> dict[str, object]:
    """OpenAI's ``usage`` object from a request's latest output.

    ``prompt_tokens_details.cached_tokens`` counts the prompt tokens whose KV
    came from the prefix cache. Upstream SGLang reports it only with
    ``--enable-cache-report``; this server always does (a documented
    deviation: the field is OpenAI's, and clients that do not know it ignore it).
    """
    prompt = output.prompt_tokens if output is not None else 0
    completion = output.completion_tokens if output is not None else 0
    cached = output.cached_tokens if output is not None else 0
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


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
        prompt: str | None = None,
        sampling_params: Mapping[str, object] | None = None,
        input_ids: Sequence[int] | None = None,
        return_logprob: bool = False,
        *,
        rid: str | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> RequestStream:
        """Send one request; a bad parameter becomes ``400``, a failed engine ``503``.

        The ``400``'s ``param`` is the request body's name of the field at
        fault: *fields* maps the engine's names (``prompt``,
        ``max_new_tokens``, ...; see :mod:`sglang.srt.entrypoints.validation`)
        onto the body's; a name it lacks is kept.
        """
        try:
            stream = self.engine.open(prompt, sampling_params, input_ids, return_logprob, rid=rid)
        except ValueError as exc:
            self.metrics.failed(endpoint)
            param = exc.param if isinstance(exc, InvalidRequestError) else None
            if param is not None:
                param = (fields or {}).get(param, param)
            raise APIError(400, str(exc), param=param) from None
        except RuntimeError as exc:
            self.metrics.failed(endpoint)
            raise APIError(503, str(exc)) from None
        self.metrics.accepted(endpoint)
        return stream

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
        stream: RequestStream,
        render: Callable[[RequestOutput], Iterable[object]],
        final: Callable[[RequestOutput | None], Iterable[object]] = lambda _: (),
    ) -> AsyncIterator[str]:
        """The server-sent events of *stream*, ending with ``data: [DONE]``.

        ``render(output)`` gives the events of each output, ``final(last
        output)`` those after the last one. The request is aborted when the
        stream is closed before it finished (a client that disconnected),
        which frees its KV pages.
        """
        try:
            async for output in stream:
                for item in render(output):
                    yield sse_event(item)
            for item in final(stream.last):
                yield sse_event(item)
        except RuntimeError as exc:  # the scheduler failed mid-stream
            yield sse_event(error_body(str(exc), "server_error"))
        finally:
            stream.close()
            self.metrics.finished(stream)
        yield SSE_DONE


def created() -> int:
    """The ``created`` timestamp of a response (seconds since the epoch)."""
    return int(time.time())
