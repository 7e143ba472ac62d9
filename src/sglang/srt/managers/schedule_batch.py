"""One request's state in the scheduler (:class:`Req`) and a batch (:class:`ScheduleBatch`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt.model_executor.model_runner import SequenceState
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
    """

    def __init__(
        self, request: TokenizedRequest, tracker: OutputTracker, generator: torch.Generator | None
    ) -> None:
        self.rid = request.rid
        self.request = request
        self.seq = SequenceState(list(request.input_ids))
        self.tracker = tracker
        self.generator = generator

    @property
    def prompt_tokens(self) -> int:
        """The prompt's length."""
        return len(self.request.input_ids)

    def __repr__(self) -> str:
        return f"<Req {self.rid} prompt {self.prompt_tokens} out {len(self.tracker.output_ids)}>"


@dataclass(frozen=True)
class ScheduleBatch:
    """The requests one step runs: a prefill of new requests, or a decode of running ones.

    Attributes:
        reqs: The requests, in order.
        is_prefill: Whether this step prefills new requests (else it decodes).
    """

    reqs: tuple[Req, ...]
    is_prefill: bool
