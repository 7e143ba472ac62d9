"""``MHATokenToKVPool``: per-layer K and V buffers of pages."""

from __future__ import annotations

import torch

from sglang.srt.mem_cache.pages import PagedGeometry

__all__ = ["MHATokenToKVPool"]


class MHATokenToKVPool(PagedGeometry):
    """A paged MHA KV cache; satisfies :class:`sglang.sdk.MHAKVPool`.

    Each layer owns a K and a V buffer of shape
    ``(num_pages * page_size, num_kv_heads, head_dim)``; slot
    ``page * page_size + offset`` holds one token.
    """

    def __init__(
        self,
        *,
        num_pages: int,
        page_size: int,
        num_layers: int,
        num_kv_heads: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device,
    ) -> None:
        super().__init__(num_pages=num_pages, page_size=page_size)
        shape = (num_pages * page_size, num_kv_heads, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Return layer *layer_id*'s ``(K, V)`` slot buffers."""
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        """Write *k* and *v* (``(tokens, heads, head_dim)``) to slots *loc*."""
        self.k_buffer[layer_id][loc] = k.to(self.k_buffer[layer_id].dtype)
        self.v_buffer[layer_id][loc] = v.to(self.v_buffer[layer_id].dtype)

    def bytes_per_page(self) -> int:
        """Return the memory one page takes over all layers (K and V)."""
        per_slot = sum(b[0].numel() * b.element_size() for b in (*self.k_buffer, *self.v_buffer))
        return per_slot * self._page_size
