"""The dicts :meth:`~sglang.srt.entrypoints.engine.Engine.generate` returns, shaped as upstream's.

``{"text", "output_ids", "meta_info": {"id", "prompt_tokens",
"completion_tokens", "cached_tokens", "finish_reason"[, "output_token_logprobs"]}}``, for a
finished request (:func:`result_dict`) or one streamed chunk
(:func:`stream_chunk_dict`). The HTTP server's ``/generate`` answers with
the same dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sglang.srt.managers.io_struct import RequestOutput

__all__ = ["result_dict", "stream_chunk_dict"]


def result_dict(chunks: Sequence[RequestOutput], with_logprobs: bool) -> dict[str, Any]:
    """The :meth:`Engine.generate` result of a finished request from all its outputs."""
    ids = [t for chunk in chunks for t in chunk.output_ids]
    logprobs = [p for chunk in chunks for p in chunk.logprobs]
    meta = _meta_info(chunks[-1], ids, logprobs if with_logprobs else None)
    return {"text": "".join(c.text for c in chunks), "output_ids": ids, "meta_info": meta}


def stream_chunk_dict(chunk: RequestOutput, with_logprobs: bool = False) -> dict[str, Any]:
    """One streamed :meth:`Engine.generate` chunk: the new ``text`` and ``output_ids``."""
    ids = list(chunk.output_ids)
    meta = _meta_info(chunk, ids, list(chunk.logprobs) if with_logprobs else None)
    return {"text": chunk.text, "output_ids": ids, "meta_info": meta}


def _meta_info(last: RequestOutput, ids: list[int], logprobs: list[float] | None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "id": last.rid,
        "prompt_tokens": last.prompt_tokens,
        "completion_tokens": last.completion_tokens,
        "cached_tokens": last.cached_tokens,
        "finish_reason": last.finish_reason,
    }
    if logprobs is not None:
        meta["output_token_logprobs"] = [(p, t, None) for p, t in zip(logprobs, ids, strict=True)]
    return meta
