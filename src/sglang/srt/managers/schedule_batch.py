"""One request's state in the scheduler (:class:`Req`) and a batch (:class:`ScheduleBatch`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt.mem_cache.sequence import SequenceState
from sglang.srt.sampling.finish import OutputTracker
from sglang.srt.sampling.logprobs import InputLogprobCollector

if TYPE_CHECKING:
    import torch

    from sglang.srt.constrained import BaseGrammarObject
    from sglang.srt.managers.io_struct import TokenizedRequest
    from sglang.srt.sampling.penaltylib import Penalizer

__all__ = ["Req", "ScheduleBatch"]


class Req:
    """A request the scheduler holds: its sequence, its output, its generator and sampling state.

    Args:
        request: What the engine sent.
        tracker: Follows its output ids and text and decides when it ends.
        generator: Its seeded generator.
        arrival: Its place in arrival order.
        penalizer: Its penalties and biases, if it has any.
        grammar: Its structured-output grammar, if it has one.

    Attributes:
        cached_tokens: Prompt tokens whose KV came from the prefix cache when
            it was first admitted (``None`` before).
        passed_over: Prefill rounds that admitted others while it waited.
        retracted_at: Its output length when it was last retracted (``None``:
            never); it is not retracted again before it outgrows that.
        input_logprobs: Gathers its prompt's log-probabilities while its
            prefill runs (``None`` when it asked for none).
    """

    def __init__(
        self,
        request: TokenizedRequest,
        tracker: OutputTracker,
        generator: torch.Generator | None,
        arrival: int = 0,
        *,
        penalizer: Penalizer | None = None,
        grammar: BaseGrammarObject | None = None,
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
        self.penalizer = penalizer
        self.grammar = grammar
        self.input_logprobs: InputLogprobCollector | None = None
        if request.wants_input_logprobs:
            self.input_logprobs = InputLogprobCollector(
                request.input_ids,
                request.logprob_start_len,
                request.top_logprobs_num,
                request.token_ids_logprob,
            )
        self.input_logprobs_sent = False

    @property
    def logits_from(self) -> int | None:
        """The first position whose logits its next prefill step returns (``None``: the last)."""
        collector = self.input_logprobs
        return None if collector is None or collector.done else collector.logits_from

    @property
    def prefix_limit(self) -> int:
        """How many leading tokens it may take from the prefix cache.

        At least one token is computed (its logits are sampled), and no
        position whose logits it still needs for its prompt's log-probabilities.
        """
        start = self.logits_from
        return len(self.seq.token_ids) - 1 if start is None else start

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

    def append_token(self, token: int) -> str:
        """Take one sampled token; return its new text (stop rules, penalties, grammar applied).

        A token the grammar refuses aborts the request; a grammar that is
        complete ends it with ``stop``, even with ``ignore_eos``.
        """
        self.seq.token_ids.append(token)
        text = self.tracker.append(token)
        if self.penalizer is not None:
            self.penalizer.cumulate(token)
        if self.grammar is not None and not self.tracker.finished:
            if not self.grammar.accept_token(token):
                self.tracker.abort(f"the grammar does not allow token {token}")
            elif self.grammar.is_terminated:
                text += self.tracker.finish_stop(token)
        return text

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
        decode_reqs: In a mixed prefill (``--enable-mixed-chunk``), the running
            requests at the end of :attr:`reqs` that decode one token in it.
    """

    reqs: tuple[Req, ...]
    is_prefill: bool
    chunked_req: Req | None = None
    decode_reqs: tuple[Req, ...] = ()

    @property
    def prefill_reqs(self) -> tuple[Req, ...]:
        """The requests whose prompt (or a chunk of it) this step computes."""
        return self.reqs[: len(self.reqs) - len(self.decode_reqs)] if self.is_prefill else ()

    @property
    def sampling_reqs(self) -> tuple[Req, ...]:
        """The requests that get a new token from this step (all but the chunked one)."""
        return tuple(r for r in self.reqs if r is not self.chunked_req)
