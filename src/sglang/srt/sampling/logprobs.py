"""Log-probabilities beyond the sampled token's: top tokens, asked tokens, the prompt's.

:func:`position_details` reads, from one position's log-distribution, the
``top_logprobs_num`` most likely tokens and the ``token_ids_logprob``
tokens. :class:`InputLogprobCollector` gathers a prompt's log-probabilities
from ``logprob_start_len`` on, over one prefill or several chunks (and
across a retraction): the log-probability of prompt token *i* is read from
the logits at position *i - 1* (``log_softmax`` of the model's logits, with
no temperature or penalty: the prompt was not sampled). The prefix cache
holds no logits, so such a request reuses cached pages only before the
first position it needs (as upstream SGLang does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sglang.srt.managers.io_struct import InputLogprobs, TopLogprobs

if TYPE_CHECKING:
    import torch

__all__ = ["InputLogprobCollector", "position_details"]


def position_details(
    logprobs: torch.Tensor, top_k: int, token_ids: Sequence[int] | None
) -> tuple[list[TopLogprobs], list[tuple[float, ...]]]:
    """Per row of *logprobs* (``[rows, vocab]``): its top *top_k* tokens and *token_ids*' values."""
    rows = logprobs.shape[0]
    tops: list[TopLogprobs] = [() for _ in range(rows)]
    asked: list[tuple[float, ...]] = [() for _ in range(rows)]
    if top_k > 0:
        found = logprobs.topk(min(top_k, logprobs.shape[-1]), dim=-1)
        values, indices = found.values.tolist(), found.indices.tolist()
        tops = [tuple(zip(v, i, strict=True)) for v, i in zip(values, indices, strict=True)]
    if token_ids:
        import torch

        index = torch.tensor(list(token_ids), dtype=torch.int64, device=logprobs.device)
        asked = [tuple(row) for row in logprobs.index_select(-1, index).tolist()]
    return tops, asked


class InputLogprobCollector:
    """Gathers one request's prompt log-probabilities as its prefill computes them.

    Args:
        input_ids: The prompt.
        start: ``logprob_start_len`` (``0 <= start < len(input_ids)``).
        top_k: ``top_logprobs_num``.
        token_ids: ``token_ids_logprob``.
    """

    def __init__(
        self, input_ids: Sequence[int], start: int, top_k: int, token_ids: Sequence[int] | None
    ) -> None:
        self.input_ids = list(input_ids)
        self.start = start
        self.top_k = top_k
        self.token_ids = token_ids
        self.logprobs: list[float | None] = []
        self.tops: list[TopLogprobs | None] = []
        self.asked: list[tuple[float, ...] | None] = []
        self.next_pos = start
        if start == 0:  # the first token has no context
            self._append(None, None, None)

    def _append(
        self, value: float | None, top: TopLogprobs | None, asked: tuple[float, ...] | None
    ) -> None:
        self.logprobs.append(value)
        self.tops.append(top)
        self.asked.append(asked)
        self.next_pos += 1

    @property
    def done(self) -> bool:
        """Whether every asked position has its log-probability."""
        return self.next_pos >= len(self.input_ids)

    @property
    def logits_from(self) -> int:
        """The first position whose logits the next prefill step must return."""
        return max(self.next_pos - 1, 0)

    def add(self, first_position: int, logits: torch.Tensor) -> None:
        """Take the logits a step computed for positions ``first_position`` onwards."""
        import torch

        skip = max(0, self.next_pos - 1 - first_position)
        count = min(logits.shape[0] - skip, len(self.input_ids) - self.next_pos)
        if count <= 0:
            return
        rows = torch.log_softmax(logits[skip : skip + count].float(), dim=-1)
        rows.clamp_(min=torch.finfo(torch.float32).min)
        targets = self.input_ids[self.next_pos : self.next_pos + count]
        index = torch.tensor(targets, dtype=torch.int64, device=rows.device).unsqueeze(-1)
        values = rows.gather(-1, index).squeeze(-1).tolist()
        tops, asked = position_details(rows, self.top_k, self.token_ids)
        for i, value in enumerate(values):
            self._append(
                value, tops[i] if self.top_k else None, asked[i] if self.token_ids else None
            )

    def result(self) -> InputLogprobs:
        """The gathered log-probabilities."""
        return InputLogprobs(
            self.start,
            tuple(self.input_ids[self.start :]),
            tuple(self.logprobs),
            tuple(self.tops) if self.top_k else (),
            tuple(self.asked) if self.token_ids else (),
        )
