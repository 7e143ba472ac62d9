"""One streamed request and what it measured: :class:`RequestFuncInput`, :class:`RequestFuncOutput`.

Each backend function sends one request with :mod:`httpx`, streams its
server-sent events and times them:

* ``sglang`` (:func:`async_request_sglang_generate`): native ``POST /generate``
  with ``input_ids``; each event carries the new ``output_ids``, so a chunk
  of *k* tokens adds *k* equal inter-token latencies (as upstream does), and
  the last event's ``meta_info`` gives ``completion_tokens`` and ``cached_tokens``.
* ``sglang-oai`` (:func:`async_request_openai_completions`): ``POST
  /v1/completions`` with the prompt as token ids and ``stream_options:
  {"include_usage": true}``; each event with text is one inter-token
  latency (as upstream counts), and the usage event gives
  ``completion_tokens`` and ``prompt_tokens_details.cached_tokens``.

TTFT is the time to the first event that holds a token; the latency is the
time to the end of the stream. A refused request (an HTTP error, an error
event, a broken connection) is recorded with ``success=False`` and its error.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ASYNC_REQUEST_FUNCS",
    "RequestFunc",
    "RequestFuncInput",
    "RequestFuncOutput",
    "async_request_openai_completions",
    "async_request_sglang_generate",
]


@dataclass(frozen=True)
class RequestFuncInput:
    """What one request sends.

    Attributes:
        prompt: The prompt's token ids.
        api_url: The endpoint's full URL.
        prompt_len: ``len(prompt)``.
        output_len: The tokens to generate.
        model: The model id (``/v1/completions`` only).
        ignore_eos: Keep generating past EOS, so that exactly *output_len* tokens come.
        extra_request_body: Fields merged into the request body.
    """

    prompt: list[int]
    api_url: str
    prompt_len: int
    output_len: int
    model: str | None = None
    ignore_eos: bool = True
    extra_request_body: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RequestFuncOutput:
    """What one request measured (filled in while it streams).

    Attributes:
        success: Whether the stream ended normally.
        latency: Seconds from sending to the end of the stream.
        ttft: Seconds to the first token (0 until it arrives).
        itl: The inter-token latencies, in seconds.
        prompt_len: The prompt's length.
        output_len: Tokens received (as the server counts them).
        cached_tokens: Prompt tokens the server took from its prefix cache.
        generated_text: The text received.
        error: Why the request failed (empty when it did not).
    """

    success: bool = False
    latency: float = 0.0
    ttft: float = 0.0
    itl: list[float] = field(default_factory=list)
    prompt_len: int = 0
    output_len: int = 0
    cached_tokens: int = 0
    generated_text: str = ""
    error: str = ""


RequestFunc = Callable[
    ["httpx.AsyncClient", RequestFuncInput, "RequestFuncOutput | None"],
    Awaitable[RequestFuncOutput],
]
"""A backend's request function: ``(client, request, output=None) -> output``."""


class _StreamError(Exception):
    """The server refused the request or sent an error event."""


async def _events(
    client: httpx.AsyncClient, url: str, body: Mapping[str, Any]
) -> AsyncIterator[tuple[float, dict[str, Any]]]:
    """``(arrival time, JSON payload)`` of each ``data:`` event until ``[DONE]`` or the end."""
    async with client.stream("POST", url, json=body) as response:
        if response.status_code != 200:
            text = (await response.aread()).decode(errors="replace")
            raise _StreamError(f"HTTP {response.status_code}: {text[:500]}")
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                return
            data = json.loads(payload)
            if "error" in data:
                raise _StreamError(json.dumps(data["error"]))
            yield time.perf_counter(), data


def _tokens_arrived(
    output: RequestFuncOutput, start: float, last: float, now: float, n: int
) -> float:
    """Record *n* tokens arriving at *now*; return the new time of the latest token."""
    if n <= 0:
        return last
    if output.ttft == 0.0:
        output.ttft = now - start
    else:
        output.itl.extend([(now - last) / n] * n)
    return now


async def _run(
    output: RequestFuncOutput,
    consume: Callable[[float], Awaitable[None]],
) -> RequestFuncOutput:
    start = time.perf_counter()
    try:
        await consume(start)
        output.success = True
    except Exception as exc:  # every failure is a measured outcome, never a crash
        output.error = f"{type(exc).__name__}: {exc}"
    output.latency = time.perf_counter() - start
    return output


async def async_request_sglang_generate(
    client: httpx.AsyncClient,
    request: RequestFuncInput,
    output: RequestFuncOutput | None = None,
) -> RequestFuncOutput:
    """Stream *request* from native ``/generate``; fill in and return *output* (or a new one)."""
    out = output if output is not None else RequestFuncOutput(prompt_len=request.prompt_len)
    params = {
        "temperature": 0.0,
        "max_new_tokens": request.output_len,
        "ignore_eos": request.ignore_eos,
    }
    body = {"input_ids": request.prompt, "sampling_params": params, "stream": True}
    body.update(request.extra_request_body)

    async def consume(start: float) -> None:
        last = start
        async for now, data in _events(client, request.api_url, body):
            ids = data.get("output_ids") or []
            out.generated_text += data.get("text", "")
            meta = data.get("meta_info") or {}
            out.output_len = int(meta.get("completion_tokens", out.output_len + len(ids)))
            out.cached_tokens = int(meta.get("cached_tokens", out.cached_tokens))
            last = _tokens_arrived(out, start, last, now, len(ids))

    return await _run(out, consume)


async def async_request_openai_completions(
    client: httpx.AsyncClient,
    request: RequestFuncInput,
    output: RequestFuncOutput | None = None,
) -> RequestFuncOutput:
    """Stream *request* from ``/v1/completions``; fill in and return *output* (or a new one)."""
    out = output if output is not None else RequestFuncOutput(prompt_len=request.prompt_len)
    body: dict[str, Any] = {
        "prompt": request.prompt,
        "temperature": 0.0,
        "max_tokens": request.output_len,
        "ignore_eos": request.ignore_eos,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.model is not None:
        body["model"] = request.model
    body.update(request.extra_request_body)

    async def consume(start: float) -> None:
        last = start
        async for now, data in _events(client, request.api_url, body):
            choices = data.get("choices") or []
            text = choices[0].get("text", "") if choices else ""
            out.generated_text += text
            last = _tokens_arrived(out, start, last, now, 1 if text else 0)
            usage = data.get("usage")
            if usage:
                out.output_len = int(usage.get("completion_tokens", 0))
                details = usage.get("prompt_tokens_details") or {}
                out.cached_tokens = int(details.get("cached_tokens") or 0)

    return await _run(out, consume)


ASYNC_REQUEST_FUNCS: Mapping[str, RequestFunc] = {
    "sglang": async_request_sglang_generate,
    "sglang-oai": async_request_openai_completions,
}
"""``--backend`` -> its request function."""
