"""The dicts :meth:`~sglang.srt.entrypoints.engine.Engine.generate` returns, shaped as upstream's.

``{"text", "output_ids", "meta_info": {"id", "prompt_tokens",
"completion_tokens", "cached_tokens", "finish_reason", "matched_stop", ...}}``
for a finished request (:func:`result_dict`) or one streamed chunk
(:func:`stream_chunk_dict`). With ``return_logprob`` ``meta_info`` also has
upstream's ``input_token_logprobs`` and ``output_token_logprobs`` (entries
``(logprob, token_id, text)``, the text ``None`` unless
``return_text_in_logprobs``), with ``top_logprobs_num`` the
``input_top_logprobs`` and ``output_top_logprobs`` (a list of entries per
position), and with ``token_ids_logprob`` the ``input_token_ids_logprobs``
and ``output_token_ids_logprobs``. The prompt's first position has no
context: its entries are ``None``. The HTTP server's ``/generate``
answers with the same dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sglang.srt.managers.io_struct import RequestOutput, TopLogprobs
from sglang.srt.managers.tokenizer_manager import LogprobOptions

__all__ = ["TokenText", "logprob_meta", "result_dict", "stream_chunk_dict"]

TokenText = Callable[[int], str]
"""The text of one token id (special tokens included)."""

Entry = tuple[float | None, int, str | None]


def _entries(
    values: Sequence[float | None], ids: Sequence[int], text: TokenText | None
) -> list[Entry]:
    return [(v, t, text(t) if text else None) for v, t in zip(values, ids, strict=True)]


def _tops(tops: Sequence[TopLogprobs | None], text: TokenText | None) -> list[list[Entry] | None]:
    out: list[list[Entry] | None] = []
    for top in tops:
        out.append(
            None if top is None else _entries([v for v, _ in top], [t for _, t in top], text)
        )
    return out


def _asked(
    values: Sequence[tuple[float, ...] | None], ids: Sequence[int], text: TokenText | None
) -> list[list[Entry] | None]:
    return [None if row is None else _entries(row, ids, text) for row in values]


def logprob_meta(
    chunks: Sequence[RequestOutput], options: LogprobOptions, text: TokenText | None
) -> dict[str, Any]:
    """The log-probability keys of ``meta_info`` for the outputs *chunks* of one request."""
    if not options.return_logprob:
        return {}
    text = text if options.return_text_in_logprobs else None
    ids = [t for c in chunks for t in c.output_ids]
    meta: dict[str, Any] = {
        "input_token_logprobs": [],
        "output_token_logprobs": _entries([p for c in chunks for p in c.logprobs], ids, text),
    }
    top, asked = options.top_logprobs_num > 0, options.token_ids_logprob is not None
    if top:
        meta["input_top_logprobs"] = []
        meta["output_top_logprobs"] = _tops([t for c in chunks for t in c.top_logprobs], text)
    token_ids = list(options.token_ids_logprob or ())
    if asked:
        meta["input_token_ids_logprobs"] = []
        rows = [r for c in chunks for r in c.token_ids_logprobs]
        meta["output_token_ids_logprobs"] = _asked(rows, token_ids, text)
    prompt = next((c.input_logprobs for c in chunks if c.input_logprobs is not None), None)
    if prompt is not None:
        meta["input_token_logprobs"] = _entries(prompt.token_logprobs, prompt.token_ids, text)
        if top:
            meta["input_top_logprobs"] = _tops(prompt.top_logprobs, text)
        if asked:
            meta["input_token_ids_logprobs"] = _asked(prompt.token_ids_logprobs, token_ids, text)
    return meta


def _meta_info(
    chunks: Sequence[RequestOutput], options: LogprobOptions, text: TokenText | None
) -> dict[str, Any]:
    last = chunks[-1]
    finish = last.finish_reason
    meta: dict[str, Any] = {
        "id": last.rid,
        "prompt_tokens": last.prompt_tokens,
        "completion_tokens": last.completion_tokens,
        "cached_tokens": last.cached_tokens,
        "finish_reason": finish,
        "matched_stop": None if finish is None else finish.get("matched"),
    }
    meta.update(logprob_meta(chunks, options, text))
    return meta


def _options(options: LogprobOptions | bool) -> LogprobOptions:
    return options if isinstance(options, LogprobOptions) else LogprobOptions(bool(options))


def result_dict(
    chunks: Sequence[RequestOutput],
    options: LogprobOptions | bool = False,
    text: TokenText | None = None,
) -> dict[str, Any]:
    """The :meth:`Engine.generate` result of a finished request from all its outputs.

    Args:
        chunks: Every output of the request, in order.
        options: Its log-probability options (``True``: ``return_logprob`` alone).
        text: Gives token texts for ``return_text_in_logprobs``.
    """
    ids = [t for chunk in chunks for t in chunk.output_ids]
    meta = _meta_info(chunks, _options(options), text)
    return {"text": "".join(c.text for c in chunks), "output_ids": ids, "meta_info": meta}


def stream_chunk_dict(
    chunk: RequestOutput, options: LogprobOptions | bool = False, text: TokenText | None = None
) -> dict[str, Any]:
    """One streamed :meth:`Engine.generate` chunk: the new ``text`` and ``output_ids``."""
    meta = _meta_info([chunk], _options(options), text)
    return {"text": chunk.text, "output_ids": list(chunk.output_ids), "meta_info": meta}
