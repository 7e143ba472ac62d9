"""``torch_native``: attention over the paged KV cache with ``scaled_dot_product_attention``."""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.sdk.srt_runtime import AttentionLayerLike, ForwardBatchLike, MHAKVPool

__all__ = ["TorchNativeAttnBackend"]


class TorchNativeAttnBackend:
    """Gathers each sequence's keys and values from its pages and runs SDPA.

    Satisfies :class:`sglang.sdk.AttentionBackend`. New tokens of sequence
    *i* attend causally to its cached prefix and to each other. A prefill
    runs one SDPA per sequence; a decode step (one new token per sequence)
    runs one SDPA for the whole batch over the sequences' slots padded to
    the longest, with padding masked out.
    """

    def __init__(self, kv_pool: MHAKVPool) -> None:
        self.kv_pool = kv_pool
        self._slots: list[torch.Tensor] = []
        self._masks: list[torch.Tensor | None] = []
        self._decode: tuple[torch.Tensor, torch.Tensor] | None = None

    def init_forward_metadata(self, batch: ForwardBatchLike) -> None:
        """Compute each sequence's KV slots and causal mask once per batch."""
        page_size = self.kv_pool.page_size
        device = batch.out_cache_loc.device
        self._slots, self._masks = [], []
        for pages, seq_len, extend in zip(
            batch.page_tables, batch.seq_lens, batch.extend_lens, strict=True
        ):
            pos = torch.arange(seq_len, device=device)
            table = torch.tensor(list(pages), dtype=torch.int64, device=device)
            self._slots.append(table[pos // page_size] * page_size + pos % page_size)
            if extend == 1:
                self._masks.append(None)
                continue
            q_pos = torch.arange(seq_len - extend, seq_len, device=device)
            self._masks.append(pos.unsqueeze(0) <= q_pos.unsqueeze(1))
        self._decode = None
        if self._slots and all(mask is None for mask in self._masks):
            longest = max(slots.numel() for slots in self._slots)
            padded = torch.zeros((len(self._slots), longest), dtype=torch.int64, device=device)
            valid = torch.zeros((len(self._slots), longest), dtype=torch.bool, device=device)
            for row, slots in enumerate(self._slots):
                padded[row, : slots.numel()] = slots
                valid[row, : slots.numel()] = True
            self._decode = (padded, valid[:, None, None, :])

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: AttentionLayerLike,
        batch: ForwardBatchLike,
    ) -> torch.Tensor:
        """Store the new keys/values, then attend; returns ``(tokens, heads * head_dim)``."""
        heads, kv_heads, dim = layer.num_heads, layer.num_kv_heads, layer.head_dim
        self.kv_pool.set_kv_buffer(
            layer.layer_id,
            batch.out_cache_loc,
            k.view(-1, kv_heads, dim),
            v.view(-1, kv_heads, dim),
        )
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        q = q.view(-1, heads, dim)
        if self._decode is not None:
            return self._decode_all(q, k_buf, v_buf, layer).reshape(-1, heads * dim)
        out = torch.empty_like(q)
        start = 0
        for slots, mask, extend in zip(self._slots, self._masks, batch.extend_lens, strict=True):
            qi = q[start : start + extend].transpose(0, 1).unsqueeze(0)
            ki = k_buf[slots].to(q.dtype).transpose(0, 1).unsqueeze(0)
            vi = v_buf[slots].to(q.dtype).transpose(0, 1).unsqueeze(0)
            if heads != kv_heads:
                ki = ki.repeat_interleave(heads // kv_heads, dim=1)
                vi = vi.repeat_interleave(heads // kv_heads, dim=1)
            oi = functional.scaled_dot_product_attention(
                qi, ki, vi, attn_mask=mask, scale=layer.scaling
            )
            out[start : start + extend] = oi.squeeze(0).transpose(0, 1)
            start += extend
        return out.reshape(-1, heads * dim)

    def _decode_all(
        self,
        q: torch.Tensor,
        k_buf: torch.Tensor,
        v_buf: torch.Tensor,
        layer: AttentionLayerLike,
    ) -> torch.Tensor:
        """One SDPA for a decode batch: ``q`` is ``(batch, heads, dim)``."""
        assert self._decode is not None
        padded, valid = self._decode
        heads, kv_heads = layer.num_heads, layer.num_kv_heads
        keys = k_buf[padded].to(q.dtype).transpose(1, 2)  # (batch, kv_heads, longest, dim)
        values = v_buf[padded].to(q.dtype).transpose(1, 2)
        out = functional.scaled_dot_product_attention(
            q.unsqueeze(2),
            keys,
            values,
            attn_mask=valid,
            scale=layer.scaling,
            enable_gqa=heads != kv_heads,
        )
        return out.squeeze(2)
