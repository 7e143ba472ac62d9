"""Messages between the engine and its scheduler processes.

They cross a :class:`multiprocessing.connection.Connection`, so they are
small frozen dataclasses of plain values.
"""

from __future__ import annotations

from dataclasses import dataclass

from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = [
    "AbortRequest",
    "ControlReply",
    "FlushCacheRequest",
    "RequestOutput",
    "ShutdownRequest",
    "StatsRequest",
    "TokenizedRequest",
]


@dataclass(frozen=True)
class TokenizedRequest:
    """A request the engine has tokenized and checked.

    Attributes:
        rid: The request id (unique in the engine).
        input_ids: The prompt as the model sees it.
        params: Its checked sampling parameters (a seed is always set, so
            every tensor-parallel rank draws the same tokens).
        return_logprob: Whether to report each output token's log-probability.
    """

    rid: str
    input_ids: tuple[int, ...]
    params: SamplingParams
    return_logprob: bool = False


@dataclass(frozen=True)
class AbortRequest:
    """Stop request *rid* now and free its KV pages."""

    rid: str


@dataclass(frozen=True)
class StatsRequest:
    """Ask for the scheduler's state; rank 0 answers with a :class:`ControlReply`.

    Attributes:
        token: Echoed in the reply, so concurrent callers get their own.
    """

    token: int = 0


@dataclass(frozen=True)
class FlushCacheRequest:
    """Empty the prefix cache if no request is running or waiting (see :class:`ControlReply`).

    Attributes:
        token: Echoed in the reply.
    """

    token: int = 0


@dataclass(frozen=True)
class ControlReply:
    """Rank 0's answer to a :class:`StatsRequest` or a :class:`FlushCacheRequest`.

    Attributes:
        token: The request's token.
        body: For stats, :meth:`Scheduler.info`; for a flush, ``{"success": bool,
            "message": str}``.
    """

    token: int
    body: dict[str, object]


@dataclass(frozen=True)
class ShutdownRequest:
    """Stop the scheduler loop."""


@dataclass(frozen=True)
class RequestOutput:
    """What one scheduler step added to a request.

    Attributes:
        rid: The request id.
        output_ids: The token ids added this step.
        text: The text they add (text that may start a stop string is held back).
        logprobs: The added tokens' log-probabilities (empty unless asked).
        finish_reason: Upstream's ``finish_reason`` dict once the request ended.
        prompt_tokens: The prompt's length.
        completion_tokens: Output tokens so far.
        cached_tokens: Prompt tokens whose KV came from the prefix cache
            (whole pages; 0 with ``--disable-radix-cache``).
    """

    rid: str
    output_ids: tuple[int, ...]
    text: str
    logprobs: tuple[float, ...]
    finish_reason: dict[str, object] | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
