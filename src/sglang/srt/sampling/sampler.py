"""Choosing next tokens from logits: :class:`Sampler`.

One call samples a whole batch. Rows whose request is greedy take the
argmax; the others are scaled by their temperature, filtered by top-k,
top-p and min-p, and drawn from the remaining distribution, each seeded
request with its own :class:`torch.Generator` so its output does not depend
on what else is in the batch. The log-probability reported for a token is
taken from the model's unmodified distribution (``log_softmax`` of the raw
logits), as upstream SGLang reports it.
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


def _filter(logits: torch.Tensor, params: SamplingParams) -> torch.Tensor:
    """Return probabilities of one row after temperature, top-k, top-p and min-p."""
    import torch

    scaled = logits.float() / params.temperature
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

    def __call__(
        self,
        logits: torch.Tensor,
        params: Sequence[SamplingParams],
        generators: Sequence[torch.Generator | None],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(token_ids, logprobs)``, one of each per row of *logits* ``[batch, vocab]``.

        Args:
            logits: The last position's logits of each request.
            params: Each row's sampling parameters.
            generators: Each row's generator (``None``: the global one).
        """
        import torch

        if not (len(params) == len(generators) == logits.shape[0]):
            raise ValueError("one SamplingParams and one generator per logits row")
        tokens = torch.argmax(logits, dim=-1)
        for row, (row_params, generator) in enumerate(zip(params, generators, strict=True)):
            if row_params.greedy:
                continue
            probs = _filter(logits[row], row_params)
            tokens[row] = torch.multinomial(probs, 1, generator=generator)[0]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        chosen = logprobs.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        return tokens, chosen
