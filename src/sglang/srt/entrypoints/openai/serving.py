"""``/v1/completions`` and ``/v1/chat/completions``, answered or streamed as OpenAI does.

The response ``id`` is the request's id: the body's ``rid`` when it has
one (as upstream), else a fresh ``cmpl-...`` / ``chatcmpl-...``, so
``POST /abort_request {"rid": id}`` reaches the request.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from sglang.runtime.http import SSE_MEDIA_TYPE, APIError
from sglang.srt.entrypoints.openai.context import (
    ServingContext,
    created,
    finish_reason,
    new_id,
    usage,
)
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest, CompletionRequest
from sglang.srt.managers.io_struct import RequestOutput

__all__ = ["create_chat_completion", "create_completion"]


class _Stream:
    """The fields every chunk of one streamed response shares."""

    def __init__(self, object_name: str, rid: str, model: str, include_usage: bool) -> None:
        self.head = {
            "id": rid,
            "object": object_name,
            "created": created(),
            "model": model,
        }
        self.include_usage = include_usage

    def chunk(self, choice: dict[str, object]) -> dict[str, object]:
        return {**self.head, "choices": [{"index": 0, "logprobs": None, **choice}]}

    def usage_chunks(self, last: RequestOutput | None) -> Iterable[dict[str, object]]:
        if self.include_usage:
            yield {**self.head, "choices": [], "usage": usage(last)}


def _sse(ctx: ServingContext, events: object) -> StreamingResponse:
    return StreamingResponse(events, media_type=SSE_MEDIA_TYPE)  # type: ignore[arg-type]


async def create_completion(
    ctx: ServingContext, body: CompletionRequest, request: Request
) -> Response:
    """Answer a completion request (a JSON body, or events with ``stream: true``)."""
    ctx.check_model(body.model)
    text, ids = (body.prompt, None) if isinstance(body.prompt, str) else (None, body.prompt)
    assert not isinstance(ids, str)
    params = body.sampling_params(body.max_tokens)
    rid = body.rid or new_id("cmpl")
    fields = {"prompt": "prompt", "input_ids": "prompt", "max_new_tokens": "max_tokens"}
    stream = ctx.open("completions", text, params, ids, rid=rid, fields=fields)  # type: ignore[arg-type]
    if body.stream:
        shape = _Stream("text_completion", rid, ctx.model_name, body.include_usage)

        def render(output: RequestOutput) -> Iterable[object]:
            if output.text or output.finish_reason is not None:
                yield shape.chunk({"text": output.text, "finish_reason": finish_reason(output)})

        return _sse(ctx, ctx.events(stream, render, shape.usage_chunks))
    (outputs,) = await ctx.collect([stream], request)
    text = "".join(o.text for o in outputs)
    return _answer(ctx, "text_completion", rid, outputs, {"text": text})


def _answer(
    ctx: ServingContext,
    object_name: str,
    rid: str,
    outputs: list[RequestOutput],
    content: dict[str, object],
) -> JSONResponse:
    """The JSON response of a finished request: one choice holding *content*, and usage."""
    last = outputs[-1]
    choice = {"index": 0, **content, "logprobs": None, "finish_reason": finish_reason(last)}
    response = {"id": rid, "object": object_name, "created": created()}
    response.update(model=ctx.model_name, choices=[choice], usage=usage(last))
    return JSONResponse(response)


def _chat_input_ids(ctx: ServingContext, body: ChatCompletionRequest) -> list[int]:
    tokenizer = ctx.engine.engine.tokenizer
    messages = [{"role": m.role, "content": m.text()} for m in body.messages]
    try:
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True)
    except ValueError as exc:
        raise APIError(400, str(exc), param="messages") from None
    return tokenizer.encode(text, add_special_tokens=False)


async def create_chat_completion(
    ctx: ServingContext, body: ChatCompletionRequest, request: Request
) -> Response:
    """Answer a chat completion request (a JSON body, or events with ``stream: true``)."""
    ctx.check_model(body.model)
    ids = _chat_input_ids(ctx, body)
    rid = body.rid or new_id("chatcmpl")
    limit = "max_tokens" if body.max_completion_tokens is None else "max_completion_tokens"
    fields = {"prompt": "messages", "input_ids": "messages", "max_new_tokens": limit}
    params = body.sampling_params(body.token_limit)
    stream = ctx.open("chat_completions", None, params, ids, rid=rid, fields=fields)
    if body.stream:
        shape = _Stream("chat.completion.chunk", rid, ctx.model_name, body.include_usage)
        first = [True]

        def render(output: RequestOutput) -> Iterable[object]:
            if first[0]:
                first[0] = False
                yield shape.chunk(
                    {"delta": {"role": "assistant", "content": ""}, "finish_reason": None}
                )
            if output.text:
                yield shape.chunk({"delta": {"content": output.text}, "finish_reason": None})
            if output.finish_reason is not None:
                yield shape.chunk({"delta": {}, "finish_reason": finish_reason(output)})

        return _sse(ctx, ctx.events(stream, render, shape.usage_chunks))
    (outputs,) = await ctx.collect([stream], request)
    message = {"role": "assistant", "content": "".join(o.text for o in outputs)}
    return _answer(ctx, "chat.completion", rid, outputs, {"message": message})
