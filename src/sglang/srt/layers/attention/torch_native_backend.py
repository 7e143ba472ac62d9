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
    *i* attend causally to its cached prefix and to each other. A sequence
    that adds several tokens (a prefill) runs one SDPA: over its new keys
    and values alone (causal) when nothing of it was cached, else over the
    keys and values gathered from its pages, a shared prefix included. The
    sequences that add one token (a decode step, or the running requests of
    a mixed step) attend together over a :class:`DecodeKVCache`: padded
    per-sequence copies that later steps extend by one token instead of
    gathering every sequence's history again, kept across prefills of other
    sequences and requests finishing, a shared prompt held once.
    """

    def __init__(self, kv_pool: MHAKVPool) -> None:
        self.kv_pool = kv_pool
        self._extends: list[tuple[int, int, torch.Tensor | None, torch.Tensor | None]] = []
        self._ones: torch.Tensor | None = None  # the tokens attended over the decode copies
        self._decode: DecodeKVCache | None = None

    def init_forward_metadata(self, batch: ForwardBatchLike) -> None:
        """Prepare the step once: the decode copies, and each other sequence's slots and mask."""
        device = batch.out_cache_loc.device
        page_size = self.kv_pool.page_size
        if self._decode is None:
            self._decode = DecodeKVCache(page_size, device)
        written: set[int] = set()
        self._extends, ones = [], []
        start = 0
        for i, (pages, seq_len, extend) in enumerate(
            zip(batch.page_tables, batch.seq_lens, batch.extend_lens, strict=True)
        ):
            prefix, start = seq_len - extend, start + extend
            if extend == 1:
                ones.append(i)
                continue
            written.update(pages[prefix // page_size : -(-seq_len // page_size)])
            if prefix == 0:  # causal over its own new tokens: nothing to gather
                self._extends.append((start - extend, extend, None, None))
                continue
            pos = torch.arange(seq_len, device=device)
            table = torch.tensor(list(pages), dtype=torch.int64, device=device)
            q_pos = torch.arange(prefix, seq_len, device=device)
            slots = table[pos // page_size] * page_size + pos % page_size
            self._extends.append((start - extend, extend, slots, pos[None] <= q_pos[:, None]))
        self._decode.invalidate(written)
        self._ones = None
        if ones:
            ends = torch.tensor(batch.extend_lens, device=device).cumsum(0)
            self._ones = ends[torch.tensor(ones, device=device)] - 1
            tables, lens = batch.page_tables, batch.seq_lens
            self._decode.begin([tables[i] for i in ones], [lens[i] for i in ones])

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
        scale = layer.scaling
        k, v = k.view(-1, kv_heads, dim), v.view(-1, kv_heads, dim)
        self.kv_pool.set_kv_buffer(layer.layer_id, batch.out_cache_loc, k, v)
        k_buf, v_buf = self.kv_pool.get_kv_buffer(layer.layer_id)
        q = q.view(-1, heads, dim)
        out = torch.empty_like(q)
        if self._ones is not None:
            assert self._decode is not None
            kv, ones = (k_buf, v_buf), self._ones
            decoded = self._decode.attend(layer.layer_id, q[ones], kv, (k[ones], v[ones]), scale)
            if not self._extends:  # a decode step
                return decoded.reshape(-1, heads * dim)
            out[ones] = decoded
        if k_buf.dtype != k.dtype:  # attend over what the pool holds, as decode steps will
            k, v = k.to(k_buf.dtype).to(q.dtype), v.to(v_buf.dtype).to(q.dtype)
        for start, extend, slots, mask in self._extends:
            qi = q[start : start + extend].transpose(0, 1).unsqueeze(0)
            if slots is None:
                ki = k[start : start + extend].transpose(0, 1).unsqueeze(0)
                vi = v[start : start + extend].transpose(0, 1).unsqueeze(0)
            else:
                ki = k_buf.index_select(0, slots).to(q.dtype).transpose(0, 1).unsqueeze(0)
                vi = v_buf.index_select(0, slots).to(q.dtype).transpose(0, 1).unsqueeze(0)
            oi = functional.scaled_dot_product_attention(
                qi,
                ki,
                vi,
                attn_mask=mask,
                is_causal=mask is None,
                scale=scale,
                enable_gqa=heads != kv_heads,
            )
            out[start : start + extend] = oi.squeeze(0).transpose(0, 1)
        return out.reshape(-1, heads * dim)
