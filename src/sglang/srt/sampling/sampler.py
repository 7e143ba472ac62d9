"""Choosing next tokens from logits: :class:`Sampler`.

One call samples a whole batch. Rows whose request is greedy take the
argmax; the others are scaled by their temperature, filtered by top-k,
top-p and min-p, and drawn from the remaining distribution, each seeded
request with its own :class:`torch.Generator` so its output does not depend
on what else is in the batch. The logits it receives are already changed
by the request's penalties, ``logit_bias`` and grammar mask
(:mod:`~sglang.srt.sampling.logits`); the log-probabilities it reports are
of the distribution it draws from before top-k, top-p and min-p filtering:
``log_softmax(logits / temperature)`` (greedy rows: temperature 1), as
upstream SGLang reports them. A token that cannot be drawn (masked) has
the lowest float32 value rather than ``-inf``, so JSON can carry it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sglang.srt.sampling.sampling_params import SamplingParams

if TYPE_CHECKING:
    import torch

__all__ = ["Sampler", "new_generator"]


def new_generator(params: SamplingParams, device: torch.device) -> torch.Generator | None:
    """A generator seeded with *params*' seed, or ``None`` for an unseeded request."""
    if params.seed is None:
        return None
    import torch

    generator = torch.Generator(device=device)
    generator.manual_seed(params.seed)
    return generator


def _filter(scaled: torch.Tensor, params: SamplingParams) -> torch.Tensor:
    """Return probabilities of one temperature-scaled row after top-k, top-p and min-p."""
    import torch

    if params.top_k > 0 and params.top_k < scaled.numel():
        kth = torch.topk(scaled, params.top_k).values[-1]
        scaled = scaled.masked_fill(scaled < kth, float("-inf"))
    probs = torch.softmax(scaled, dim=-1)
    if params.top_p < 1.0:
        sorted_probs, order = torch.sort(probs, descending=True)
        before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
        sorted_probs = sorted_probs.masked_fill(before >= params.top_p, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
    if params.min_p > 0.0:
        probs = probs.masked_fill(probs < params.min_p * probs.max(), 0.0)
    return probs / probs.sum()


class Sampler:
    """Samples next tokens for a batch and reports their log-probabilities."""

    def sample(
        self,
        logits: torch.Tensor,
        params: Sequence[SamplingParams],
        generators: Sequence[torch.Generator | None],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(token_ids, logprobs)``: one token per row, and each row's log-distribution.

        Args:
            logits: The last position's logits of each request ``[batch, vocab]``
                (penalties and masks applied).
            params: Each row's sampling parameters.
            generators: Each row's generator (``None``: the global one).
        """
        import torch

        if not (len(params) == len(generators) == logits.shape[0]):
            raise ValueError("one SamplingParams and one generator per logits row")
        temperatures = [1.0 if p.greedy else float(p.temperature) for p in params]
        scaled = logits.float()
        if any(t != 1.0 for t in temperatures):
            scale = torch.tensor(temperatures, dtype=torch.float32, device=logits.device)
            scaled = scaled / scale.unsqueeze(-1)
        tokens = torch.argmax(logits, dim=-1)
        for row, (row_params, generator) in enumerate(zip(params, generators, strict=True)):
            if row_params.greedy:
                continue
            probs = _filter(scaled[row], row_params)
            tokens[row] = torch.multinomial(probs, 1, generator=generator)[0]
        logprobs = torch.log_softmax(scaled, dim=-1)
        logprobs.clamp_(min=torch.finfo(torch.float32).min)
        return tokens, logprobs

    def __call__(
        self,
        logits: torch.Tensor,
        params: Sequence[SamplingParams],
        generators: Sequence[torch.Generator | None],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(token_ids, logprobs)``: one token per row and its log-probability."""
        tokens, logprobs = self.sample(logits, params, generators)
        return tokens, logprobs.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
