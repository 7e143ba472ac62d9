"""One request's state in the scheduler (:class:`Req`) and a batch (:class:`ScheduleBatch`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt.mem_cache.sequence import SequenceState
from sglang.srt.sampling.finish import OutputTracker

if TYPE_CHECKING:
    import torch

    from sglang.srt.managers.io_struct import TokenizedRequest

__all__ = ["Req", "ScheduleBatch"]


class Req:
    """A request the scheduler holds: its sequence, its output and its generator.

    Args:
        request: What the engine sent.
        tracker: Follows its output ids and text and decides when it ends.
        generator: Its seeded generator.
        arrival: Its place in arrival order.

    Attributes:
        cached_tokens: Prompt tokens whose KV came from the prefix cache when
            it was first admitted (``None`` before).
        passed_over: Prefill rounds that admitted others while it waited.
        retracted_at: Its output length when it was last retracted (``None``:
            never); it is not retracted again before it outgrows that.
    """

    def __init__(
        self,
        request: TokenizedRequest,
        tracker: OutputTracker,
        generator: torch.Generator | None,
        arrival: int = 0,
    ) -> None:
        self.rid = request.rid
        self.request = request
        self.seq = SequenceState(list(request.input_ids))
        self.tracker = tracker
        self.generator = generator
        self.arrival = arrival
        self.cached_tokens: int | None = None
        self.passed_over = 0
        self.retracted_at: int | None = None

    @property
    def prompt_tokens(self) -> int:
        """The prompt's length."""
        return len(self.request.input_ids)

    @property
    def output_len(self) -> int:
        """Tokens generated so far."""
        return len(self.tracker.output_ids)

    @property
    def may_retract(self) -> bool:
        """Whether it made progress since it was last retracted (or never was)."""
        return self.retracted_at is None or self.output_len > self.retracted_at

    @property
    def remaining_new_tokens(self) -> int:
        """The most tokens it may still generate."""
        return max(0, self.tracker.room - self.output_len)

    def __repr__(self) -> str:
        return f"<Req {self.rid} prompt {self.prompt_tokens} out {self.output_len}>"


@dataclass(frozen=True)
class ScheduleBatch:
    """The requests one step runs: a prefill of new requests, or a decode of running ones.

    Attributes:
        reqs: The requests, in order.
        is_prefill: Whether this step prefills (else it decodes one token each).
        chunked_req: In a prefill, the request of which this step computes only
            a chunk of the prompt: it samples no token yet.
    """

    reqs: tuple[Req, ...]
    is_prefill: bool
    chunked_req: Req | None = None

    @property
    def sampling_reqs(self) -> tuple[Req, ...]:
        """The requests that get a new token from this step (all but the chunked one)."""
        return tuple(r for r in self.reqs if r is not self.chunked_req)
