"""What ``/v1/completions`` and ``/v1/chat/completions`` share: choices, usage, logprobs.

A request with ``n`` samples and several prompts becomes one engine request
per prompt and sample, prompt-major, and choice *i* of the response is
request *i* (``index = prompt * n + sample``). ``usage`` counts each
prompt once and every choice's completion; ``cached_tokens`` adds up the
prompt tokens every choice read from the prefix cache (as upstream SGLang
adds them up). Log-probabilities come from the engine's ``meta_info``
entries (:func:`~sglang.srt.entrypoints.outputs.logprob_meta`) with the
token texts. The response ``id`` is the body's ``rid`` when it has one (as
upstream), else a fresh ``cmpl-...`` / ``chatcmpl-...``; the engine's
requests are named after it (:func:`request_items`), so ``POST
/abort_request {"rid": id}`` reaches them.

* :mod:`~sglang.srt.entrypoints.openai.serving_completions`: ``/v1/completions``;
* :mod:`~sglang.srt.entrypoints.openai.serving_chat`: ``/v1/chat/completions``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse, StreamingResponse

from sglang.runtime.http import SSE_MEDIA_TYPE
from sglang.srt.entrypoints.openai.context import ServingContext, created, new_id
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, CompletionRequest
from sglang.srt.entrypoints.outputs import logprob_meta
from sglang.srt.entrypoints.validation import PromptItem
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions

__all__ = [
    "ResponseHead",
    "chat_logprobs",
    "completion_logprobs",
    "finish_fields",
    "request_items",
    "response_id",
    "response_json",
    "running_usage",
    "stream_response",
    "total_usage",
]


def finish_fields(output: RequestOutput | None) -> dict[str, object]:
    """``finish_reason`` (``stop``, ``length``, ``abort``) and upstream's ``matched_stop``."""
    finish = None if output is None else output.finish_reason
    if finish is None:
        return {"finish_reason": None, "matched_stop": None}
    return {"finish_reason": finish.get("type"), "matched_stop": finish.get("matched")}


def total_usage(outputs: Sequence[RequestOutput | None], n: int) -> dict[str, object]:
    """OpenAI's ``usage`` of a response whose choices are *outputs* (``n`` per prompt).

    ``prompt_tokens_details.cached_tokens`` counts the prompt tokens whose KV
    came from the prefix cache. Upstream SGLang reports it only with
    ``--enable-cache-report``; this server always does (a documented
    deviation: the field is OpenAI's, and clients that do not know it ignore it).
    """
    done = [o for o in outputs if o is not None]
    prompt = sum(o.prompt_tokens for i, o in enumerate(outputs) if o is not None and i % n == 0)
    completion = sum(o.completion_tokens for o in done)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": sum(o.cached_tokens for o in done)},
    }


def response_id(body: CompletionRequest | ChatCompletionRequest, prefix: str) -> str:
    """The response's ``id``: the body's ``rid`` (as upstream), else a fresh ``{prefix}-...``."""
    return body.rid if body.rid is not None else new_id(prefix)


def request_items(
    prompts: Sequence[tuple[str | None, Sequence[int] | None]],
    params: Mapping[str, object],
    rid: str | None,
) -> list[PromptItem]:
    """The engine's prompts of one response, named after its ``rid`` when it has one.

    One prompt is request *rid*; prompt *i* of several is ``f"{rid}-{i}"``
    (the engine names sample *j* of ``n`` ``f"{name}-{j}"``), so
    ``POST /abort_request {"rid": rid}`` reaches every request of the response.
    """
    if rid is None or len(prompts) == 1:
        return [PromptItem(text, ids, params, rid) for text, ids in prompts]
    return [PromptItem(text, ids, params, f"{rid}-{i}") for i, (text, ids) in enumerate(prompts)]


class ResponseHead:
    """The fields every chunk of one streamed response shares, and its chunk shapes.

    Args:
        object_name: ``text_completion`` or ``chat.completion.chunk``.
        rid: The response's id (:func:`response_id`).
        model: The served model's id.
    """

    def __init__(self, object_name: str, rid: str, model: str) -> None:
        self.head = {"id": rid, "object": object_name, "created": created()}
        self.head["model"] = model

    def chunk(self, index: int, choice: dict[str, object], **extra: object) -> dict[str, object]:
        """One chunk holding the choice *index*."""
        body = {"index": index, "logprobs": None, **choice}
        return {**self.head, "choices": [body], **extra}

    def usage_chunk(self, usage: dict[str, object]) -> dict[str, object]:
        """The last chunk of ``stream_options.include_usage``."""
        return {**self.head, "choices": [], "usage": usage}


def running_usage(output: RequestOutput) -> dict[str, object]:
    """The ``usage`` of one choice so far (``stream_options.continuous_usage_stats``)."""
    return {
        "prompt_tokens": output.prompt_tokens,
        "completion_tokens": output.completion_tokens,
        "total_tokens": output.prompt_tokens + output.completion_tokens,
    }


def _meta(chunks: Sequence[RequestOutput], options: LogprobOptions, ctx: ServingContext) -> Any:
    return logprob_meta(chunks, options, ctx.engine.engine.token_text)


def completion_logprobs(
    chunks: Sequence[RequestOutput],
    options: LogprobOptions,
    ctx: ServingContext,
    offset: int,
    with_prompt: bool,
) -> dict[str, Any]:
    """OpenAI's completion ``logprobs`` of *chunks*.

    ``tokens``, ``token_logprobs``, ``top_logprobs`` and ``text_offset``;
    the offsets count characters from *offset*.
    """
    meta = _meta(chunks, options, ctx)
    entries = (meta["input_token_logprobs"] if with_prompt else []) + meta["output_token_logprobs"]
    tokens = [str(text) for _, _, text in entries]
    offsets = []
    for token in tokens:
        offsets.append(offset)
        offset += len(token)
    result: dict[str, Any] = {
        "tokens": tokens,
        "token_logprobs": [lp for lp, _, _ in entries],
        "top_logprobs": None,
        "text_offset": offsets,
    }
    if options.top_logprobs_num:
        tops = (meta["input_top_logprobs"] if with_prompt else []) + meta["output_top_logprobs"]
        result["top_logprobs"] = [
            None if top is None else {str(text): lp for lp, _, text in top} for top in tops
        ]
    return result


def _token(text: str, logprob: float) -> dict[str, object]:
    return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}


def chat_logprobs(
    chunks: Sequence[RequestOutput], options: LogprobOptions, ctx: ServingContext
) -> dict[str, Any]:
    """OpenAI's chat ``logprobs``: ``{"content": [{token, logprob, bytes, top_logprobs}]}``."""
    meta = _meta(chunks, options, ctx)
    tops = meta.get("output_top_logprobs") or [[] for _ in meta["output_token_logprobs"]]
    content = []
    for (lp, _, text), top in zip(meta["output_token_logprobs"], tops, strict=True):
        item = _token(str(text), lp)
        item["top_logprobs"] = [_token(str(t), v) for v, _, t in top or ()]
        content.append(item)
    return {"content": content}


def stream_response(
    ctx: ServingContext,
    head: ResponseHead,
    streams: Sequence[Any],
    render: Callable[[int, RequestOutput], Iterable[object]],
    body: CompletionRequest | ChatCompletionRequest,
) -> StreamingResponse:
    """The event stream of *streams*: *render* per output, then the total ``usage`` if asked."""

    def final(lasts: list[RequestOutput | None]) -> Iterable[object]:
        if body.include_usage:
            yield head.usage_chunk(total_usage(lasts, body.n))

    return StreamingResponse(ctx.events(streams, render, final), media_type=SSE_MEDIA_TYPE)


def response_json(
    ctx: ServingContext,
    head: tuple[str, str],
    choices: list[dict[str, object]],
    outputs: Sequence[Sequence[RequestOutput]],
    n: int,
) -> JSONResponse:
    """The JSON response of finished requests: *head* is ``(object name, response id)``."""
    response = {"id": head[1], "object": head[0], "created": created()}
    response.update(model=ctx.model_name, choices=choices)
    response["usage"] = total_usage([chunks[-1] for chunks in outputs], n)
    return JSONResponse(response)
