"""``DecodeKVCache``: the decode batch's keys and values, kept padded from step to step.

The paged pool stays the source of truth; this is a derived copy laid out
as SDPA reads it, one row per running sequence. A sequence that continues
from the previous decode step (one token longer, its pages unchanged) keeps
its row, and each layer only writes its new token into it; a sequence seen
for the first time (or whose pages changed) has its history gathered from
the pages into a free row, once. So the copies survive the steps around
them: a prefill of other sequences, a request finishing, a new one joining.

Rows live in *blocks*, each a ``(rows, kv_heads, capacity, head_dim)``
tensor per layer that one SDPA call attends over. Sequences that join go
into a free row of a block whose capacity holds them and whose padding
stays within :data:`_RAGGED` times the work its sequences need, else into
a new block sized for them. So joining never copies the rows already held
(on a CPU, writing fresh memory costs more than the attention it serves),
and one long prompt's sequence decoding among short chats gets a block of
its own instead of padding every row to its length. A block is rebuilt
only for itself: when one of its sequences outgrows its capacity, or when
most of its rows are gone (its live rows are then packed together).

Rows are invalidated, never trusted blindly: a row lives while its sequence
keeps decoding, and dies when a decode step leaves that sequence out, or
when any step writes into one of the pages it copied (the pages of a
finished request can be freed and handed to another one). A block with no
live row is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch.nn import functional

__all__ = ["DecodeKVCache"]

_GROWTH = 128
"""Positions a block holds beyond its longest sequence when it is (re)built."""

_SPARE_ROWS = 4
"""Rows a block holds beyond its sequences when it is (re)built, for sequences that join."""

_RAGGED = 2
"""A block's padded work (rows x longest) may be at most this many times the work its
sequences need; beyond it, each row attends over its own length alone (one call per row)."""


@dataclass
class _Row:
    """What one row holds: a sequence's first ``length`` tokens, read from ``pages``."""

    pages: list[int]
    length: int
    page_set: set[int]


@dataclass
class _Block:
    """Rows that one attention call reads, and their per-layer copies."""

    rows: list[_Row | None]
    capacity: int
    layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    old_layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)


@dataclass
class _Plan:
    """What each layer does with one block in this step (decided once, in :meth:`begin`)."""

    block: _Block
    batch: torch.Tensor  # the batch index of each sequence in this block
    rows: torch.Tensor  # its row in the block
    positions: torch.Tensor  # where its new token goes
    fill_rows: torch.Tensor | None  # rows gathered from the pages this step
    fill_slots: torch.Tensor | None  # (len(fill_rows), width) pool slots to gather
    moved: tuple[torch.Tensor, torch.Tensor] | None  # (old rows, new rows) kept by a rebuild
    packed: tuple[torch.Tensor, torch.Tensor] | None  # (from, to) rows moved within the block
    used: int  # rows attended (the block's first ``used``)
    longest: int
    mask: torch.Tensor  # (used, 1, 1, longest) padding mask
    ragged: list[tuple[int, int]]  # (row, length) of each row, when it attends alone
    identity: bool  # sequence j of this block is row j, and no other row is attended


class DecodeKVCache:
    """Per-layer padded copies of the decode batch's K/V, in blocks of rows.

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
        self._blocks: list[_Block] = []
        self._plans: list[_Plan] = []
        self._batch = 0
        self._direct = False
        self.gathered_rows = 0
        """Rows gathered from the pages so far (a sequence joining, or its pages changed)."""
        self.moved_rows = 0
        """Rows copied by rebuilds and packing so far (within a block, or to its new tensors)."""

    @property
    def live_rows(self) -> int:
        """How many rows hold a sequence's keys and values."""
        return sum(row is not None for block in self._blocks for row in block.rows)

    @property
    def blocks(self) -> int:
        """How many blocks the rows are in."""
        return len(self._blocks)

    @property
    def ragged(self) -> list[int]:
        """The batch indices of this step's sequences that attend row by row."""
        return [int(i) for plan in self._plans if plan.ragged for i in plan.batch.tolist()]

    def reset(self) -> None:
        """Forget every copy."""
        self._blocks, self._plans = [], []

    def invalidate(self, written_pages: set[int]) -> None:
        """Drop the rows that copied any of *written_pages* (a prefill step writes them)."""
        for block in self._blocks:
            for index, row in enumerate(block.rows):
                if row is not None and not row.page_set.isdisjoint(written_pages):
                    block.rows[index] = None

    def _match(
        self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]
    ) -> list[tuple[_Block, int] | None]:
        """Each sequence's row, if one holds its first ``seq_len - 1`` tokens; free the others."""
        ps = self.page_size
        by_end: dict[tuple[int, int], list[tuple[_Block, int]]] = {}
        for block in self._blocks:
            for index, row in enumerate(block.rows):
                if row is not None:
                    by_end.setdefault((row.length, row.pages[-1]), []).append((block, index))
        found: list[tuple[_Block, int] | None] = []
        claimed: set[tuple[int, int]] = set()
        for pages, seq_len in zip(page_tables, seq_lens, strict=True):
            hit = None
            if seq_len > 1:
                for block, index in by_end.get((seq_len - 1, pages[(seq_len - 2) // ps]), ()):
                    row = block.rows[index]
                    assert row is not None
                    key = (id(block), index)
                    if key not in claimed and list(pages[: len(row.pages)]) == row.pages:
                        hit = (block, index)
                        claimed.add(key)
                        break
            found.append(hit)
        for block in self._blocks:  # a row left out: its sequence is gone
            for index in range(len(block.rows)):
                if (id(block), index) not in claimed:
                    block.rows[index] = None
        return found

    def begin(self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]) -> None:
        """Match each sequence to its row (or a free one) and plan this step's copies."""
        if any(block.old_layers for block in self._blocks):  # a step failed mid-rebuild
            self.reset()
        self._batch = len(seq_lens)
        found = self._match(page_tables, seq_lens)
        members: dict[int, list[tuple[int, int | None]]] = {id(b): [] for b in self._blocks}
        for i, hit in enumerate(found):
            if hit is not None:
                members[id(hit[0])].append((i, hit[1]))
        joining = sorted(
            (i for i, hit in enumerate(found) if hit is None), key=lambda i: -seq_lens[i]
        )
        for n, i in enumerate(joining):
            block = next(  # a block with a free row that holds it and pads within _RAGGED
                (
                    b
                    for b in self._blocks
                    if len(members[id(b)]) < len(b.rows)
                    and seq_lens[i] <= b.capacity
                    and _fits([seq_lens[j] for j, _ in members[id(b)]], seq_lens[i])
                ),
                None,
            )
            if block is None:  # a new block, for this sequence and the shorter ones that fit
                fit = [i]
                for j in joining[n + 1 :]:
                    if _fits([seq_lens[k] for k in fit], seq_lens[j]):
                        fit.append(j)
                block = _Block([None] * (len(fit) + _SPARE_ROWS), seq_lens[i] + _GROWTH)
                self._blocks.append(block)
                members[id(block)] = []
            members[id(block)].append((i, None))
        self._blocks = [b for b in self._blocks if members[id(b)]]
        self._plans = [
            self._plan(block, members[id(block)], page_tables, seq_lens) for block in self._blocks
        ]
        only = self._plans[0] if len(self._plans) == 1 else None
        self._direct = (  # one block, sequence i in row i: no gather or scatter of the batch
            only is not None and only.identity and only.batch.tolist() == list(range(self._batch))
        )

    def _plan(
        self,
        block: _Block,
        held: list[tuple[int, int | None]],
        page_tables: Sequence[Sequence[int]],
        seq_lens: Sequence[int],
    ) -> _Plan:
        """Give the block's joining sequences rows, rebuild it if needed, and plan its step."""
        lens = [seq_lens[i] for i, _ in held]
        longest = max(lens)
        n = len(held)
        kept = {row for _, row in held if row is not None}
        free = iter(r for r in range(len(block.rows)) if r not in kept)
        rows = [row if row is not None else next(free) for _, row in held]
        used = max(rows) + 1
        moved = packed = None
        if longest > block.capacity:
            # new tensors: its sequences in rows 0..n-1, room for more sequences and tokens
            pairs = [(row, new) for new, (_, row) in enumerate(held) if row is not None]
            moved = (self._tensor([o for o, _ in pairs]), self._tensor([m for _, m in pairs]))
            block.rows = [block.rows[row] if row is not None else None for _, row in held]
            block.rows += [None] * _SPARE_ROWS
            block.capacity = longest + _GROWTH
            block.old_layers, block.layers = block.layers, {}
            rows, used = list(range(n)), n
        elif 2 * (used - n) > n:  # mostly empty rows below the last one: pack them, in place
            low = iter(sorted(set(range(n)) - set(rows)))
            pairs = []
            for index, ((_, old), row) in enumerate(zip(held, rows, strict=True)):
                if row >= n:
                    rows[index] = next(low)
                    if old is not None:
                        pairs.append((row, rows[index]))
                        block.rows[rows[index]], block.rows[row] = block.rows[row], None
            packed = (self._tensor([o for o, _ in pairs]), self._tensor([m for _, m in pairs]))
            used = n
        fill = [n for n, row in enumerate(rows) if block.rows[row] is None]
        self.gathered_rows += len(fill)
        self.moved_rows += sum(len(pair[0]) for pair in (moved, packed) if pair is not None)
        self._advance(block, rows, [page_tables[i] for i, _ in held], lens)
        ragged = list(zip(rows, lens, strict=True))
        if used * longest <= _RAGGED * sum(lens):
            ragged = []
        plan = _Plan(
            block=block,
            batch=self._tensor([i for i, _ in held]),
            rows=self._tensor(rows),
            positions=self._tensor(lens) - 1,
            fill_rows=self._tensor([rows[n] for n in fill]) if fill else None,
            fill_slots=(
                self._slot_matrix(
                    [page_tables[held[n][0]] for n in fill], max(lens[n] for n in fill)
                )
                if fill
                else None
            ),
            moved=moved,
            packed=packed,
            used=used,
            longest=longest,
            mask=torch.empty(0),
            ragged=ragged,
            identity=rows == list(range(used)),
        )
        row_lens = torch.ones(used, dtype=torch.int64, device=self.device)  # others: one slot
        row_lens[plan.rows] = plan.positions + 1
        steps = torch.arange(longest, device=self.device)
        padding = (steps.unsqueeze(0) >= row_lens.unsqueeze(1))[:, None, None, :]
        plan.mask = torch.zeros(padding.shape, device=self.device).masked_fill_(padding, -math.inf)
        return plan

    def _advance(
        self,
        block: _Block,
        rows: list[int],
        page_tables: Sequence[Sequence[int]],
        seq_lens: Sequence[int],
    ) -> None:
        """Record what each row holds after this step (a new row: the sequence's pages)."""
        ps = self.page_size
        for index, pages, seq_len in zip(rows, page_tables, seq_lens, strict=True):
            row = block.rows[index]
            if row is None:
                held = list(pages[: -(-seq_len // ps)])
                block.rows[index] = _Row(held, seq_len, set(held))
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
        self, plan: _Plan, layer_id: int, k_buf: torch.Tensor, dtype: torch.dtype
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The block's copies for this layer, built now if this step rebuilds them."""
        block = plan.block
        entry = block.layers.get(layer_id)
        if entry is not None:
            return entry
        shape = (len(block.rows), k_buf.shape[1], block.capacity, k_buf.shape[2])
        # not zeroed: a row is written whole when it is filled or moved, so only the rows in
        # use are ever touched (on a CPU, first writes to fresh memory are the dear part)
        fresh = (
            torch.empty(shape, dtype=dtype, device=self.device),
            torch.empty(shape, dtype=dtype, device=self.device),
        )
        old = block.old_layers.pop(layer_id, None)
        if old is not None and plan.moved is not None and plan.moved[0].numel():
            width = old[0].shape[2]
            for source, target in zip(old, fresh, strict=True):
                target[plan.moved[1], :, :width] = source[plan.moved[0]]
                target[plan.moved[1], :, width:] = 0
        block.layers[layer_id] = fresh
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
        if self._direct:
            return self._attend_block(self._plans[0], layer_id, q, kv, new_kv, scale)
        out = torch.empty_like(q)
        for plan in self._plans:
            new = (new_kv[0][plan.batch], new_kv[1][plan.batch])
            out[plan.batch] = self._attend_block(plan, layer_id, q[plan.batch], kv, new, scale)
        return out

    def _attend_block(
        self,
        plan: _Plan,
        layer_id: int,
        q: torch.Tensor,
        kv: tuple[torch.Tensor, torch.Tensor],
        new_kv: tuple[torch.Tensor, torch.Tensor],
        scale: float,
    ) -> torch.Tensor:
        """:meth:`attend` for the sequences of one block (*q* and *new_kv* are theirs)."""
        keys, values = self._copies(plan, layer_id, kv[0], new_kv[0].dtype)
        if plan.packed is not None and plan.packed[0].numel():
            for copy in (keys, values):
                copy[plan.packed[1]] = copy[plan.packed[0]]
        if plan.fill_rows is not None and plan.fill_slots is not None:
            width = plan.fill_slots.shape[1]
            for buf, copy in zip(kv, (keys, values), strict=True):
                # a row at a time: a small temporary that the allocator hands out again
                for row, slots in zip(plan.fill_rows.tolist(), plan.fill_slots, strict=True):
                    copy[row, :, :width] = buf.index_select(0, slots).transpose(0, 1)
                copy[plan.fill_rows, :, width:] = 0
        keys[plan.rows, :, plan.positions] = new_kv[0].to(keys.dtype)
        values[plan.rows, :, plan.positions] = new_kv[1].to(values.dtype)
        used, heads, dim = plan.used, q.shape[1], q.shape[2]
        kv_heads = keys.shape[1]
        if plan.ragged:
            out = torch.empty_like(q)
            for i, (row, length) in enumerate(plan.ragged):
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
            keys[:used, :, : plan.longest].to(q.dtype),
            values[:used, :, : plan.longest].to(q.dtype),
            attn_mask=plan.mask.to(q.dtype),
            scale=scale,
        ).reshape(used, heads, dim)
        return out if plan.identity else out[plan.rows]


def _fits(lens: list[int], new: int) -> bool:
    """Whether a block attending over *lens* and *new* pads within :data:`_RAGGED`."""
    return (len(lens) + 1) * max([new, *lens]) <= _RAGGED * (sum(lens) + new)
