"""``DecodeKVCache``: a decode batch's keys and values, kept padded between steps.

The paged pool stays the source of truth; this is a derived copy laid out
as SDPA wants it. When a decode step continues the previous one (the same
sequences in the same order, each one token longer, their pages unchanged),
each layer only writes the new token of every sequence into its copy, so a
step no longer re-gathers every sequence's whole history from the pages.
Any other batch (a prefill, a finished or retracted request, a new one)
starts over with one gather per layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = ["DecodeKVCache"]

_GROWTH = 128
"""Slots added beyond the longest sequence when a copy is (re)built."""


def _continues(
    pages: Sequence[Sequence[int]],
    seq_lens: Sequence[int],
    prev_pages: Sequence[Sequence[int]],
    prev_lens: Sequence[int],
) -> bool:
    """Whether this step adds one token to each sequence of the previous step, in order."""
    if len(pages) != len(prev_pages):
        return False
    for now, before, length, before_len in zip(pages, prev_pages, seq_lens, prev_lens, strict=True):
        if length != before_len + 1 or list(now[: len(before)]) != list(before):
            return False
    return True


class DecodeKVCache:
    """Per-layer ``(batch, kv_heads, capacity, head_dim)`` copies of a decode batch's K/V.

    Call :meth:`begin` once per decode step (with the batch's page tables
    and lengths), then :meth:`keys_values` in each layer after the pool
    holds the new token.

    Args:
        page_size: Tokens per KV page.
        device: Where the copies live.
    """

    def __init__(self, page_size: int, device: torch.device) -> None:
        self.page_size = page_size
        self.device = device
        self._pages: list[list[int]] = []
        self._lens: list[int] = []
        self._capacity = 0
        self._layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self._slots = torch.empty(0, dtype=torch.int64)
        self.rows = torch.empty(0, dtype=torch.int64)
        self.positions = torch.empty(0, dtype=torch.int64)
        self.mask = torch.empty(0, dtype=torch.bool)
        self.longest = 0

    def reset(self) -> None:
        """Forget the copies (a prefill step ran)."""
        self._pages, self._lens, self._layers = [], [], {}

    def begin(self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]) -> None:
        """Prepare a decode step: keep the copies if it continues the last one, else rebuild."""
        self.longest = max(seq_lens)
        keep = self._layers and self.longest <= self._capacity
        if not (keep and _continues(page_tables, seq_lens, self._pages, self._lens)):
            self._layers = {}
            self._capacity = self.longest + _GROWTH
            self._slots = self._slot_matrix(page_tables, self.longest)
        self._pages = [list(p) for p in page_tables]
        self._lens = list(seq_lens)
        lens = torch.tensor(seq_lens, dtype=torch.int64, device=self.device)
        self.rows = torch.arange(len(seq_lens), device=self.device)
        self.positions = lens - 1
        steps = torch.arange(self.longest, device=self.device)
        self.mask = (steps.unsqueeze(0) < lens.unsqueeze(1))[:, None, None, :]

    def _slot_matrix(self, page_tables: Sequence[Sequence[int]], longest: int) -> torch.Tensor:
        """The ``(batch, longest)`` pool slots of every sequence (padding reads slot 0)."""
        width = -(-longest // self.page_size)
        rows = [list(p[:width]) + [0] * (width - len(p[:width])) for p in page_tables]
        table = torch.tensor(rows, dtype=torch.int64, device=self.device)
        pos = torch.arange(longest, device=self.device)
        return table[:, pos // self.page_size] * self.page_size + pos % self.page_size

    def keys_values(
        self,
        layer_id: int,
        k_buf: torch.Tensor,
        v_buf: torch.Tensor,
        k_new: torch.Tensor,
        v_new: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return layer *layer_id*'s ``(batch, kv_heads, longest, head_dim)`` keys and values.

        Args:
            layer_id: The layer.
            k_buf: The layer's pool K buffer (already holding the new token).
            v_buf: Its V buffer.
            k_new: The new token's keys, ``(batch, kv_heads, head_dim)``.
            v_new: Its values.
        """
        entry = self._layers.get(layer_id)
        if entry is None:
            entry = (self._gather(k_buf, k_new.dtype), self._gather(v_buf, v_new.dtype))
            self._layers[layer_id] = entry
        else:
            entry[0][self.rows, :, self.positions] = k_new.to(entry[0].dtype)
            entry[1][self.rows, :, self.positions] = v_new.to(entry[1].dtype)
        return entry[0][:, :, : self.longest], entry[1][:, :, : self.longest]

    def _gather(self, buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        batch, longest = self._slots.shape
        heads, dim = buf.shape[1], buf.shape[2]
        out = torch.zeros((batch, heads, self._capacity, dim), dtype=dtype, device=self.device)
        gathered = buf.index_select(0, self._slots.view(-1)).view(batch, longest, heads, dim)
        out[:, :, :longest] = gathered.transpose(1, 2)
        return out
