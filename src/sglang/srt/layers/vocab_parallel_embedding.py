"""Vocabulary-parallel embedding and LM head.

The vocabulary is padded to a multiple of the TP size and split into equal
contiguous ranges. The embedding looks up the ids of its range (others give
zeros) and all-reduces; the LM head computes the logits of its range and
all-gathers them, trimming the padding.
"""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.srt.distributed import TensorParallel
from sglang.srt.layers.linear import default_weight_loader, set_weight_loader
from sglang.srt.layers.packed_linear import linear, pack_weight

__all__ = ["ParallelLMHead", "VocabParallelEmbedding"]


class VocabParallelEmbedding(torch.nn.Module):
    """An embedding table whose rows are split across ranks.

    Attributes:
        num_embeddings: The real vocabulary size.
        start: The first id of this rank's range.
        end: One past the last id of this rank's range (padding included).
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, tp: TensorParallel | None = None
    ) -> None:
        super().__init__()
        self.tp = tp or TensorParallel()
        self.num_embeddings = num_embeddings
        per_rank = -(-num_embeddings // self.tp.size)
        self.start = self.tp.rank * per_rank
        self.end = self.start + per_rank
        self.weight = torch.nn.Parameter(torch.empty(per_rank, embedding_dim), requires_grad=False)
        set_weight_loader(self.weight, self.weight_loader)

    def weight_loader(self, param: torch.nn.Parameter, loaded: torch.Tensor) -> None:
        """Copy this rank's rows of the full table (zeros for the padding)."""
        rows = max(0, min(self.end, self.num_embeddings) - self.start)
        padded = torch.zeros_like(param.data)
        padded[:rows] = loaded.narrow(0, self.start, rows)
        default_weight_loader(param, padded)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Embed *input_ids* (the sum over ranks gives the full lookup)."""
        if self.tp.size == 1:
            return functional.embedding(input_ids, self.weight)
        mask = (input_ids < self.start) | (input_ids >= self.end)
        local = functional.embedding((input_ids - self.start).masked_fill(mask, 0), self.weight)
        return self.tp.all_reduce(local.masked_fill(mask.unsqueeze(-1), 0.0))


class ParallelLMHead(VocabParallelEmbedding):
    """The output projection to vocabulary logits, split like the embedding.

    Attributes:
        packed_weight: A oneDNN-packed copy of the weight on a CPU
            (:func:`process_weights_after_loading`), else ``None``.
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, tp: TensorParallel | None = None
    ) -> None:
        super().__init__(num_embeddings, embedding_dim, tp=tp)
        self.packed_weight: torch.Tensor | None = None

    def process_weights_after_loading(self) -> None:
        """Pack the loaded (or tied) weight for the CPU's matrix kernels where that applies."""
        self.packed_weight = pack_weight(self.weight)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Return full-vocabulary logits for *hidden* (``(tokens, vocab)``)."""
        logits = self.tp.all_gather(linear(hidden, self.weight, self.packed_weight))
        return logits[..., : self.num_embeddings]
