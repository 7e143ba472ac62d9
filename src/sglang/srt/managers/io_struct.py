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
    "InputLogprobs",
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
        return_logprob: Whether to report log-probabilities.
        logprob_start_len: The first prompt position whose log-probability is
            reported (``-1``: none of the prompt's).
        top_logprobs_num: How many most likely tokens to report per position.
        token_ids_logprob: Tokens whose log-probabilities to report per position.
    """

    rid: str
    input_ids: tuple[int, ...]
    params: SamplingParams
    return_logprob: bool = False
    logprob_start_len: int = -1
    top_logprobs_num: int = 0
    token_ids_logprob: tuple[int, ...] | None = None

    @property
    def wants_input_logprobs(self) -> bool:
        """Whether prompt positions' log-probabilities are reported."""
        return self.return_logprob and 0 <= self.logprob_start_len < len(self.input_ids)


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


TopLogprobs = tuple[tuple[float, int], ...]
"""The most likely tokens at one position: ``(logprob, token_id)``, most likely first."""


@dataclass(frozen=True)
class InputLogprobs:
    """The log-probabilities of a request's prompt, from ``logprob_start_len`` on.

    Entry *i* is about prompt position ``start + i`` (the first position has
    no context, so its entries are ``None``).

    Attributes:
        start: ``logprob_start_len``.
        token_ids: The prompt's tokens from ``start`` on.
        token_logprobs: Each one's log-probability.
        top_logprobs: The most likely tokens there (empty unless asked).
        token_ids_logprobs: The asked tokens' log-probabilities there (empty unless asked).
    """

    start: int
    token_ids: tuple[int, ...]
    token_logprobs: tuple[float | None, ...]
    top_logprobs: tuple[TopLogprobs | None, ...] = ()
    token_ids_logprobs: tuple[tuple[float, ...] | None, ...] = ()


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
        top_logprobs: Per added token, the most likely tokens at its position
            (empty unless ``top_logprobs_num``).
        token_ids_logprobs: Per added token, the log-probabilities of
            ``token_ids_logprob`` at its position (empty unless asked).
        input_logprobs: The prompt's log-probabilities, in the request's first output.
    """

    rid: str
    output_ids: tuple[int, ...]
    text: str
    logprobs: tuple[float, ...]
    finish_reason: dict[str, object] | None
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    top_logprobs: tuple[TopLogprobs, ...] = ()
    token_ids_logprobs: tuple[tuple[float, ...], ...] = ()
    input_logprobs: InputLogprobs | None = None
