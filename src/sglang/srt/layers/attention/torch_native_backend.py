"""``torch_native``: attention over the paged KV cache with ``scaled_dot_product_attention``."""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.sdk.srt_runtime import AttentionLayerLike, ForwardBatchLike, MHAKVPool
from sglang.srt.layers.attention.decode import DecodeKVCache

__all__ = ["TorchNativeAttnBackend"]


class TorchNativeAttnBackend:
    """Attends over each sequence's paged keys and values with SDPA.

    Satisfies :class:`sglang.sdk.AttentionBackend`. New tokens of sequence
    *i* attend causally to its cached prefix and to each other. A prefill
    runs one SDPA per sequence: over its new keys and values alone (causal)
    when nothing of it was cached, else over the keys and values gathered
    from its pages, a shared prefix included. A decode step (one new token
    per sequence) runs one SDPA per layer for the whole batch over a
    :class:`DecodeKVCache`: padded per-sequence copies that later decode
    steps extend by one token instead of gathering every sequence's history
    again, kept across prefills of other sequences and requests finishing;
    padding is masked out with one mask per step.
    """

    def __init__(self, kv_pool: MHAKVPool) -> None:
        self.kv_pool = kv_pool
        self._slots: list[torch.Tensor | None] = []
        self._masks: list[torch.Tensor | None] = []
        self._decode: DecodeKVCache | None = None
        self._is_decode = False

    def init_forward_metadata(self, batch: ForwardBatchLike) -> None:
        """Prepare the step once: the decode copies, or each sequence's slots and causal mask."""
        device = batch.out_cache_loc.device
        page_size = self.kv_pool.page_size
        if self._decode is None:
            self._decode = DecodeKVCache(page_size, device)
        self._is_decode = bool(batch.seq_lens) and all(n == 1 for n in batch.extend_lens)
        if self._is_decode:
            self._decode.begin(batch.page_tables, batch.seq_lens)
            return
        written: set[int] = set()
        self._slots, self._masks = [], []
        for pages, seq_len, extend in zip(
            batch.page_tables, batch.seq_lens, batch.extend_lens, strict=True
        ):
            prefix = seq_len - extend
            written.update(pages[prefix // page_size : -(-seq_len // page_size)])
            if prefix == 0:  # causal over its own new tokens: nothing to gather
                self._slots.append(None)
                self._masks.append(None)
                continue
            pos = torch.arange(seq_len, device=device)
            table = torch.tensor(list(pages), dtype=torch.int64, device=device)
            self._slots.append(table[pos // page_size] * page_size + pos % page_size)
            q_pos = torch.arange(prefix, seq_len, device=device)
            self._masks.append(pos.unsqueeze(0) <= q_pos.unsqueeze(1))
        self._decode.invalidate(written)

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
        k, v = k.view(-1, kv_heads, dim), v.view(-1, kv_heads, dim)
        self.kv_pool.set_kv_buffer(layer.layer_id, batch.out_cache_loc, k, v)
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        q = q.view(-1, heads, dim)
        if self._is_decode:
            assert self._decode is not None
            out = self._decode.attend(layer.layer_id, q, (k_buf, v_buf), (k, v), layer.scaling)
            return out.reshape(-1, heads * dim)
        if k_buf.dtype != k.dtype:  # attend over what the pool holds, as decode steps will
            k, v = k.to(k_buf.dtype).to(q.dtype), v.to(v_buf.dtype).to(q.dtype)
        out = torch.empty_like(q)
        start = 0
        for slots, mask, extend in zip(self._slots, self._masks, batch.extend_lens, strict=True):
            qi = q[start : start + extend].transpose(0, 1).unsqueeze(0)
            if slots is None:
                ki = k[start : start + extend].transpose(0, 1).unsqueeze(0)
                vi = v[start : start + extend].transpose(0, 1).unsqueeze(0)
            else:
                ki = k_buf[slots].to(q.dtype).transpose(0, 1).unsqueeze(0)
                vi = v_buf[slots].to(q.dtype).transpose(0, 1).unsqueeze(0)
            oi = functional.scaled_dot_product_attention(
                qi,
                ki,
                vi,
                attn_mask=mask,
                is_causal=mask is None,
                scale=layer.scaling,
                enable_gqa=heads != kv_heads,
            )
            out[start : start + extend] = oi.squeeze(0).transpose(0, 1)
            start += extend
        return out.reshape(-1, heads * dim)
