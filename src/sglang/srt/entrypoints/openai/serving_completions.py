"""``/v1/completions``, answered or streamed as OpenAI does.

Several prompts (a list of strings or of token-id lists) and ``n``
samples each give ``len(prompts) * n`` choices, in that order. With
``echo`` a choice's text starts with its prompt (and with ``logprobs``
its entries start with the prompt's tokens, the first one's logprob
``null``); ``logprobs: k`` reports the sampled token's logprob and the
``k`` most likely tokens at every position; ``text_offset`` counts
characters from the start of the prompt, so without ``echo`` the first
completion token's offset is the prompt's length.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.requests import Request
from starlette.responses import Response

from sglang.srt.entrypoints.openai.context import ServingContext
from sglang.srt.entrypoints.openai.protocol import CompletionRequest
from sglang.srt.entrypoints.openai.serving import (
    ResponseHead,
    completion_logprobs,
    finish_fields,
    request_items,
    response_id,
    response_json,
    running_usage,
    stream_response,
)
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions

__all__ = ["create_completion"]

_FIELDS = {
    "prompt": "prompt",
    "input_ids": "prompt",
    "max_new_tokens": "max_tokens",
    "min_new_tokens": "min_tokens",
    "top_logprobs_num": "logprobs",
}
"""The body's names of the engine's fields (the ``param`` of a ``400``)."""


async def create_completion(
    ctx: ServingContext, body: CompletionRequest, request: Request
) -> Response:
    """Answer a completion request (a JSON body, or events with ``stream: true``)."""
    ctx.check_model(body.model)
    prompts = body.prompts()
    k = body.logprobs
    echo_logprobs = body.echo and k is not None
    options = LogprobOptions(
        return_logprob=k is not None,
        logprob_start_len=0 if echo_logprobs else -1,
        top_logprobs_num=k or 0,
        return_text_in_logprobs=True,
    )
    params = body.sampling_params(body.max_tokens)
    rid = response_id(body, "cmpl")
    items = request_items(prompts, params, body.rid)
    streams = ctx.open("completions", items, [options] * len(items), fields=_FIELDS)
    tokenizer = ctx.engine.engine.tokenizer
    texts = [t if t is not None else tokenizer.decode(list(i or ())) for t, i in prompts]
    n = body.n

    def prompt_text(index: int) -> str:
        return texts[index // n]

    if body.stream:
        head = ResponseHead("text_completion", rid, ctx.model_name)
        started = [False] * len(streams)
        offsets = [len(prompt_text(i)) for i in range(len(streams))]

        def render(index: int, output: RequestOutput) -> Iterable[object]:
            first = not started[index]
            started[index] = True
            text = output.text
            if first and body.echo:
                text = prompt_text(index) + text
            if not text and output.finish_reason is None and not output.output_ids:
                return
            choice: dict[str, object] = {"text": text, **finish_fields(output)}
            if options.return_logprob:
                start = 0 if first and echo_logprobs else offsets[index]
                logprobs = completion_logprobs([output], options, ctx, start, first)
                offsets[index] = start + sum(len(t) for t in logprobs["tokens"])
                choice["logprobs"] = logprobs
            extra = {"usage": running_usage(output)} if body.continuous_usage else {}
            yield head.chunk(index, choice, **extra)

        return stream_response(ctx, head, streams, render, body)
    outputs = await ctx.collect(streams, request)
    choices = []
    for index, chunks in enumerate(outputs):
        text = "".join(o.text for o in chunks)
        prompt = prompt_text(index)
        choice: dict[str, object] = {"index": index, "text": prompt + text if body.echo else text}
        choice["logprobs"] = None
        if options.return_logprob:
            start = 0 if echo_logprobs else len(prompt)
            choice["logprobs"] = completion_logprobs(chunks, options, ctx, start, echo_logprobs)
        choice.update(finish_fields(chunks[-1]))
        choices.append(choice)
    return response_json(ctx, ("text_completion", rid), choices, outputs, n)
