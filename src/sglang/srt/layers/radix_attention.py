"""``RadixAttention``: a model's attention layer, computed by the batch's backend."""

from __future__ import annotations

import torch

from sglang.srt.model_executor.forward_batch_info import ForwardBatch

__all__ = ["RadixAttention"]


class RadixAttention(torch.nn.Module):
    """One attention layer; satisfies :class:`sglang.sdk.AttentionLayerLike`.

    ``forward(q, k, v, batch)`` hands the projected, rotated tensors to
    ``batch.attn_backend``, which stores k/v in the paged cache.
    """

    def __init__(
        self, num_heads: int, head_dim: int, scaling: float, num_kv_heads: int, layer_id: int
    ) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.scaling = scaling
        self.num_kv_heads = num_kv_heads
        self.layer_id = layer_id

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, batch: ForwardBatch
    ) -> torch.Tensor:
        """Return the attention output for the batch's new tokens."""
        return batch.attn_backend.forward(q, k, v, self, batch)
