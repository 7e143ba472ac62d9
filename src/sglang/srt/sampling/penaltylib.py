"""Penalties and biases applied to one request's logits before sampling.

:class:`Penalizer` holds what a request's penalties need on the device
(the counts of its generated tokens, the tokens of its prompt and output)
and changes its logits row in place, in upstream SGLang's order:

1. the additive penalties: ``frequency_penalty`` times each token's count in
   the output, ``presence_penalty`` for each token present in the output,
   and ``-inf`` for EOS and the stop tokens while fewer than
   ``min_new_tokens`` tokens were generated;
2. ``repetition_penalty`` on every token of the prompt and the output (a
   positive logit is divided by it, a negative one multiplied);
3. ``logit_bias``, added.

The sampler then draws from the changed logits (scaled by the
temperature), and the log-probabilities it reports are of that
distribution.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from sglang.srt.sampling.sampling_params import SamplingParams

if TYPE_CHECKING:
    import torch

__all__ = ["Penalizer"]


class Penalizer:
    """One request's penalties, biases and minimum length (see the module docstring).

    Args:
        params: The request's sampling parameters (:attr:`SamplingParams.penalized`).
        prompt_ids: The prompt (the repetition penalty covers it).
        stop_ids: EOS and stop tokens, masked until ``min_new_tokens``.
        device: Where the request's logits are.
    """

    def __init__(
        self,
        params: SamplingParams,
        prompt_ids: Sequence[int],
        stop_ids: Collection[int],
        device: torch.device,
    ) -> None:
        self.params = params
        self.device = device
        self._prompt = list(prompt_ids)
        self._stop = sorted(stop_ids)
        self._vocab = 0
        self.counts: torch.Tensor | None = None
        self.seen: torch.Tensor | None = None
        self.bias: torch.Tensor | None = None
        self.generated = 0

    def _init(self, vocab: int) -> None:
        import torch

        self._vocab = vocab
        params = self.params
        if params.frequency_penalty or params.presence_penalty:
            self.counts = torch.zeros(vocab, dtype=torch.float32, device=self.device)
        if params.repetition_penalty != 1.0:
            self.seen = torch.zeros(vocab, dtype=torch.bool, device=self.device)
            ids = [t for t in self._prompt if t < vocab]
            self.seen[torch.tensor(ids, dtype=torch.int64, device=self.device)] = True
        if params.logit_bias:
            self.bias = torch.zeros(vocab, dtype=torch.float32, device=self.device)
            tokens = torch.tensor([t for t, _ in params.logit_bias], device=self.device)
            values = torch.tensor([b for _, b in params.logit_bias], device=self.device)
            self.bias[tokens] = values

    def apply(self, logits: torch.Tensor) -> None:
        """Change one request's float32 logits row (``[vocab]``) in place."""
        import torch

        if self._vocab != logits.shape[-1]:
            self._init(logits.shape[-1])
        params = self.params
        if self.counts is not None:
            logits -= params.frequency_penalty * self.counts
            logits -= params.presence_penalty * (self.counts > 0).float()
        if self.generated < params.min_new_tokens and self._stop:
            stop = [t for t in self._stop if t < self._vocab]
            logits[torch.tensor(stop, dtype=torch.int64, device=self.device)] = float("-inf")
        if self.seen is not None:
            penalty = params.repetition_penalty
            scaled = torch.where(logits > 0, logits / penalty, logits * penalty)
            logits.copy_(torch.where(self.seen, scaled, logits))
        if self.bias is not None:
            logits += self.bias

    def cumulate(self, token: int) -> None:
        """Count a token the request generated."""
        self.generated += 1
        if token >= self._vocab:
            return
        if self.counts is not None:
            self.counts[token] += 1
        if self.seen is not None:
            self.seen[token] = True
