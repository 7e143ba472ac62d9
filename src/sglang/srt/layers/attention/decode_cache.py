"""``DecodeKVCache``: the decode batch's keys and values, kept padded from step to step.

The paged pool stays the source of truth; this is a derived copy laid out
as SDPA reads it, one row per running sequence. A sequence that continues
from the previous decode step (one token longer, its pages unchanged) keeps
its row, and each layer only writes its new token into it; a sequence seen
for the first time (or whose pages changed) has its history gathered from
the pages into a free row, once. So the copies survive the steps around
them: a prefill of other sequences, a request finishing, a new one joining.

A step whose sequences differ so much in length that padding every row to
the longest would more than double the work (one long prompt decoding
among short chats) attends row by row instead, each over its own length.

Rows are invalidated, never trusted blindly: a row lives while its sequence
keeps decoding, and dies when a decode step leaves that sequence out, or
when any step writes into one of the pages it copied (the pages of a
finished request can be freed and handed to another one). Rows of finished
sequences are compacted away once they would make a step's attention do much
more work than its batch needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional

__all__ = ["DecodeKVCache"]

_GROWTH = 128
"""Positions added beyond the longest sequence when the copies are (re)built."""

_SPARE_ROWS = 4
"""Rows added beyond the batch when the copies are (re)built, for sequences that join."""

_RAGGED = 2
"""When padding every row to the longest would do more than this many times the work the
sequences need, each row attends over its own length alone (one attention call per row)."""


@dataclass
class _Row:
    """What one row holds: a sequence's first ``length`` tokens, read from ``pages``."""

    pages: list[int]
    length: int
    page_set: set[int]


@dataclass
class _Plan:
    """What each layer does to its copies in this step (decided once, in :meth:`begin`)."""

    rows: torch.Tensor  # the row of each batch sequence
    positions: torch.Tensor  # where each sequence's new token goes
    fill_rows: torch.Tensor | None  # rows gathered from the pages this step
    fill_slots: torch.Tensor | None  # (len(fill_rows), width) pool slots to gather
    moved: tuple[torch.Tensor, torch.Tensor] | None  # (old rows, new rows) kept by a rebuild
    shape: tuple[int, int]  # (rows, capacity) of the copies
    identity: bool  # batch sequence i is row i, and no other row is attended


class DecodeKVCache:
    """Per-layer ``(rows, kv_heads, capacity, head_dim)`` copies of the decode batch's K/V.

    Call :meth:`begin` once per decode step (with the batch's page tables
    and lengths), then :meth:`attend` in each layer after the pool holds the
    new tokens; call :meth:`invalidate` for every other step, with the pages
    it writes.

    Args:
        page_size: Tokens per KV page.
        device: Where the copies live.
    """

    def __init__(self, page_size: int, device: torch.device) -> None:
        self.page_size = page_size
        self.device = device
        self._rows: list[_Row | None] = []
        self._layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self._old_layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        self._shape = (0, 0)
        self._plan: _Plan | None = None
        self.mask = torch.empty(0)
        self.longest = 0
        self.ragged: list[tuple[int, int]] = []

    @property
    def live_rows(self) -> int:
        """How many rows hold a sequence's keys and values."""
        return sum(row is not None for row in self._rows)

    def reset(self) -> None:
        """Forget every copy."""
        self._rows, self._shape, self._plan = [], (0, 0), None
        self._layers, self._old_layers = {}, {}

    def invalidate(self, written_pages: set[int]) -> None:
        """Drop the rows that copied any of *written_pages* (a prefill step writes them)."""
        for index, row in enumerate(self._rows):
            if row is not None and not row.page_set.isdisjoint(written_pages):
                self._rows[index] = None

    def _match(
        self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]
    ) -> list[int | None]:
        """Each sequence's row, if one holds its first ``seq_len - 1`` tokens; free the others."""
        ps = self.page_size
        by_end: dict[tuple[int, int], list[int]] = {}
        for index, row in enumerate(self._rows):
            if row is not None:
                by_end.setdefault((row.length, row.pages[-1]), []).append(index)
        order: list[int | None] = []
        claimed: set[int] = set()
        for pages, seq_len in zip(page_tables, seq_lens, strict=True):
            found = None
            if seq_len > 1:
                for index in by_end.get((seq_len - 1, pages[(seq_len - 2) // ps]), ()):
                    row = self._rows[index]
                    assert row is not None
                    if index not in claimed and list(pages[: len(row.pages)]) == row.pages:
                        found = index
                        break
            if found is not None:
                claimed.add(found)
            order.append(found)
        for index, row in enumerate(self._rows):
            if row is not None and index not in claimed:  # left out: its sequence is gone
                self._rows[index] = None
        return order

    def begin(self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]) -> None:
        """Match each sequence to its row (or a free one) and plan this step's copies."""
        if self._old_layers:  # a step failed half-way through a rebuild: start over
            self.reset()
        order = self._match(page_tables, seq_lens)
        batch = len(order)
        self.longest = max(seq_lens)
        free = [i for i, row in enumerate(self._rows) if row is None]
        assigned = [
            found if found is not None else (free.pop(0) if free else -1) for found in order
        ]
        used = max(assigned) + 1
        moved = None
        if -1 in assigned or self.longest > self._shape[1] or 2 * (used - batch) > batch:
            # new copies: sequence i in row i, room for more sequences and tokens
            kept = [(old, new) for new, old in enumerate(order) if old is not None]
            moved = (self._tensor([old for old, _ in kept]), self._tensor([new for _, new in kept]))
            self._shape = (batch + _SPARE_ROWS, self.longest + _GROWTH)
            self._rows = [self._rows[old] if old is not None else None for old in order]
            self._rows += [None] * _SPARE_ROWS
            self._old_layers, self._layers = self._layers, {}
            assigned, used = list(range(batch)), batch
        fill = [i for i in range(batch) if self._rows[assigned[i]] is None]
        self._advance(assigned, page_tables, seq_lens)
        self._plan = _Plan(
            rows=self._tensor(assigned),
            positions=self._tensor(list(seq_lens)) - 1,
            fill_rows=self._tensor([assigned[i] for i in fill]) if fill else None,
            fill_slots=(
                self._slot_matrix([page_tables[i] for i in fill], max(seq_lens[i] for i in fill))
                if fill
                else None
            ),
            moved=moved,
            shape=self._shape,
            identity=assigned == list(range(batch)) and used == batch,
        )
        # one sequence far longer than the others would make every row attend over its
        # length: then each row attends over its own length alone
        self.ragged = [(assigned[i], n) for i, n in enumerate(seq_lens)]
        if used * self.longest <= _RAGGED * sum(seq_lens):
            self.ragged = []
        lens = torch.ones(used, dtype=torch.int64, device=self.device)  # other rows: one slot
        lens[self._plan.rows] = self._plan.positions + 1
        steps = torch.arange(self.longest, device=self.device)
        padding = (steps.unsqueeze(0) >= lens.unsqueeze(1))[:, None, None, :]
        self.mask = torch.zeros(padding.shape, device=self.device).masked_fill_(padding, -math.inf)

    def _advance(
        self,
        assigned: list[int],
        page_tables: Sequence[Sequence[int]],
        seq_lens: Sequence[int],
    ) -> None:
        """Record what each row holds after this step (a new row: the sequence's pages)."""
        ps = self.page_size
        for index, pages, seq_len in zip(assigned, page_tables, seq_lens, strict=True):
            row = self._rows[index]
            if row is None:
                held = list(pages[: -(-seq_len // ps)])
                self._rows[index] = _Row(held, seq_len, set(held))
                continue
            row.length = seq_len
            if len(row.pages) * ps < seq_len:
                page = pages[(seq_len - 1) // ps]
                row.pages.append(page)
                row.page_set.add(page)

    def _tensor(self, values: list[int]) -> torch.Tensor:
        return torch.tensor(values, dtype=torch.int64, device=self.device)

    def _slot_matrix(self, page_tables: Sequence[Sequence[int]], longest: int) -> torch.Tensor:
        """The ``(sequences, longest)`` pool slots of each sequence (padding reads slot 0)."""
        width = -(-longest // self.page_size)
        rows = [list(p[:width]) + [0] * (width - len(p[:width])) for p in page_tables]
        table = self._tensor([page for row in rows for page in row]).view(len(rows), width)
        pos = torch.arange(longest, device=self.device)
        return table[:, pos // self.page_size] * self.page_size + pos % self.page_size

    def _copies(
        self, layer_id: int, k_buf: torch.Tensor, dtype: torch.dtype
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """This layer's copies, built now if this step rebuilds them (moving the kept rows)."""
        entry = self._layers.get(layer_id)
        if entry is not None:
            return entry
        assert self._plan is not None
        rows, cap = self._plan.shape
        shape = (rows, k_buf.shape[1], cap, k_buf.shape[2])
        fresh = (
            torch.zeros(shape, dtype=dtype, device=self.device),
            torch.zeros(shape, dtype=dtype, device=self.device),
        )
        old = self._old_layers.pop(layer_id, None)
        moved = self._plan.moved
        if old is not None and moved is not None and moved[0].numel():
            width = min(old[0].shape[2], cap)
            for source, target in zip(old, fresh, strict=True):
                target[moved[1], :, :width] = source.index_select(0, moved[0])[:, :, :width]
        self._layers[layer_id] = fresh
        return fresh

    def attend(
        self,
        layer_id: int,
        q: torch.Tensor,
        kv: tuple[torch.Tensor, torch.Tensor],
        new_kv: tuple[torch.Tensor, torch.Tensor],
        scale: float,
    ) -> torch.Tensor:
        """Attend the batch's queries over their sequences; return ``(batch, heads, head_dim)``.

        Args:
            layer_id: The layer.
            q: The new tokens' queries, ``(batch, heads, head_dim)``.
            kv: The layer's pool K and V buffers (already holding the new tokens).
            new_kv: The new tokens' keys and values, ``(batch, kv_heads, head_dim)``.
            scale: The softmax scale.
        """
        plan = self._plan
        assert plan is not None
        keys, values = self._copies(layer_id, kv[0], new_kv[0].dtype)
        if plan.fill_rows is not None and plan.fill_slots is not None:
            count, width = plan.fill_slots.shape
            for buf, copy in zip(kv, (keys, values), strict=True):
                gathered = buf.index_select(0, plan.fill_slots.view(-1)).to(copy.dtype)
                gathered = gathered.view(count, width, buf.shape[1], buf.shape[2])
                copy[plan.fill_rows, :, :width] = gathered.transpose(1, 2)
        keys[plan.rows, :, plan.positions] = new_kv[0].to(keys.dtype)
        values[plan.rows, :, plan.positions] = new_kv[1].to(values.dtype)
        used, heads, dim = self.mask.shape[0], q.shape[1], q.shape[2]
        kv_heads = keys.shape[1]
        if self.ragged:
            out = torch.empty_like(q)
            for i, (row, length) in enumerate(self.ragged):
                out[i] = functional.scaled_dot_product_attention(
                    q[i].view(kv_heads, heads // kv_heads, dim),
                    keys[row, :, :length].to(q.dtype),
                    values[row, :, :length].to(q.dtype),
                    scale=scale,
                ).reshape(heads, dim)
            return out
        if plan.identity:
            queries = q
        else:
            queries = q.new_zeros((used, heads, dim))
            queries[plan.rows] = q
        # the query heads of one key/value head attend together, as one query block,
        # so each sequence's keys and values are read once per step, not once per query head
        out = functional.scaled_dot_product_attention(
            queries.view(used, kv_heads, heads // kv_heads, dim),
            keys[:used, :, : self.longest].to(q.dtype),
            values[:used, :, : self.longest].to(q.dtype),
            attn_mask=self.mask.to(q.dtype),
            scale=scale,
        ).reshape(used, heads, dim)
        return out if plan.identity else out[plan.rows]
