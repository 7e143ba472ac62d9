"""``/v1/chat/completions``, answered or streamed as OpenAI does.

The messages are rendered with the model's chat template (with
``chat_template_kwargs`` as further template variables; with
``continue_final_message`` the text ends with the last message, which the
model continues) and tokenized once; ``n`` samples share the prompt.
``logprobs: true`` reports each token's logprob, ``top_logprobs`` (0 to 20)
the most likely tokens too. ``return_prompt_token_ids`` adds the prompt's
ids to every choice (``prompt_token_ids``), and is refused with ``stream``,
as upstream SGLang refuses it.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.requests import Request
from starlette.responses import Response

from sglang.runtime.http import APIError
from sglang.srt.entrypoints.openai.context import ServingContext
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.entrypoints.openai.serving import (
    ResponseHead,
    chat_logprobs,
    finish_fields,
    request_items,
    response_id,
    response_json,
    running_usage,
    stream_response,
)
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions

__all__ = ["create_chat_completion"]


def chat_input_ids(ctx: ServingContext, body: ChatCompletionRequest) -> list[int]:
    """The prompt's ids: the messages rendered with the chat template, tokenized."""
    tokenizer = ctx.engine.engine.tokenizer
    messages = [{"role": m.role, "content": m.text()} for m in body.messages]
    try:
        text = tokenizer.apply_chat_template(
            messages,
            add_generation_prompt=True,
            continue_final_message=body.continue_final_message,
            template_kwargs=body.chat_template_kwargs,
        )
    except ValueError as exc:
        param = "continue_final_message" if body.continue_final_message else "messages"
        raise APIError(400, str(exc), param=param) from None
    return tokenizer.encode(text, add_special_tokens=False)


def _options(body: ChatCompletionRequest) -> LogprobOptions:
    if body.top_logprobs and not body.logprobs:
        raise APIError(400, "top_logprobs needs logprobs: true", param="top_logprobs")
    return LogprobOptions(
        return_logprob=bool(body.logprobs),
        top_logprobs_num=(body.top_logprobs or 0) if body.logprobs else 0,
        return_text_in_logprobs=True,
    )


async def create_chat_completion(
    ctx: ServingContext, body: ChatCompletionRequest, request: Request
) -> Response:
    """Answer a chat completion request (a JSON body, or events with ``stream: true``)."""
    ctx.check_model(body.model)
    if body.stream and body.return_prompt_token_ids:
        raise APIError(
            400,
            "return_prompt_token_ids is not supported with streaming. Please set stream=false "
            "when using return_prompt_token_ids=true.",
            param="return_prompt_token_ids",
        )
    options = _options(body)
    ids = chat_input_ids(ctx, body)
    params = body.sampling_params(body.token_limit)
    rid = response_id(body, "chatcmpl")
    limit = "max_tokens" if body.max_completion_tokens is None else "max_completion_tokens"
    fields = {"prompt": "messages", "input_ids": "messages", "max_new_tokens": limit}
    fields.update(min_new_tokens="min_tokens", top_logprobs_num="top_logprobs")
    if body.response_format is not None:
        fields["json_schema"] = "response_format"
    items = request_items([(None, ids)], params, body.rid)
    streams = ctx.open("chat_completions", items, [options], fields=fields)
    n = body.n
    if body.stream:
        head = ResponseHead("chat.completion.chunk", rid, ctx.model_name)
        started = [False] * len(streams)

        def render(index: int, output: RequestOutput) -> Iterable[object]:
            extra = {"usage": running_usage(output)} if body.continuous_usage else {}
            if not started[index]:
                started[index] = True
                delta = {"role": "assistant", "content": ""}
                yield head.chunk(index, {"delta": delta, "finish_reason": None}, **extra)
            if output.text or (options.return_logprob and output.output_ids):
                choice: dict[str, object] = {"delta": {"content": output.text}}
                choice["finish_reason"] = None
                if options.return_logprob:
                    choice["logprobs"] = chat_logprobs([output], options, ctx)
                yield head.chunk(index, choice, **extra)
            if output.finish_reason is not None:
                yield head.chunk(index, {"delta": {}, **finish_fields(output)}, **extra)

        return stream_response(ctx, head, streams, render, body)
    outputs = await ctx.collect(streams, request)
    choices = []
    for index, chunks in enumerate(outputs):
        message = {"role": "assistant", "content": "".join(o.text for o in chunks)}
        choice: dict[str, object] = {"index": index, "message": message, "logprobs": None}
        if options.return_logprob:
            choice["logprobs"] = chat_logprobs(chunks, options, ctx)
        choice.update(finish_fields(chunks[-1]))
        if body.return_prompt_token_ids:
            choice["prompt_token_ids"] = ids
        choices.append(choice)
    return response_json(ctx, ("chat.completion", rid), choices, outputs, n)
