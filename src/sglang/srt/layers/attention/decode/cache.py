"""``DecodeKVCache``: the decode batch's keys and values, kept padded from step to step.

The paged pool stays the source of truth; this is a derived copy laid out
as SDPA reads it, one row per running sequence. A sequence that continues
from the previous decode step (one token longer, its pages unchanged) keeps
its row, and each layer only writes its new token into it; a sequence seen
for the first time (or whose pages changed) has its history gathered from
the pages into a free row, once. So the copies survive the steps around
them: a prefill of other sequences, a request finishing, a new one joining.

Rows live in *blocks* (:mod:`.blocks`), each a ``(rows, kv_heads, capacity,
head_dim)`` tensor per layer that one attention call reads. A joining
sequence takes a free row of a block whose capacity holds it and whose
padding stays within :data:`~.blocks.RAGGED` times the work its sequences
need, else a new block sized for it. So joining never copies the rows
already held (on a CPU, writing fresh memory costs more than the attention
it serves), and one long prompt's sequence decoding among short chats gets
a block of its own. Sequences that join together on the same leading pages
(at least :data:`~.blocks.SHARED` tokens: the prefix cache gave them one
system prompt) get a block that holds those keys and values once: each
layer attends over them once for all the block's queries, and each row
holds only its suffix (:func:`.attention.with_prefix`). A block is rebuilt
only for itself: when one of its sequences outgrows its capacity, or when
most of its rows are gone (its live rows are then packed together).

Rows are invalidated, never trusted blindly: a row lives while its sequence
keeps decoding, and dies when a decode step leaves that sequence out, or
when any step writes into one of the pages it copied (the pages of a
finished request can be freed and handed to another one); a write into a
block's shared pages drops the block. A block with no live row is dropped.
A step in which no sequence continues from a row is not the decode batch
but new sequences only (a prompt's one-token chunk, or prompts the prefix
cache holds but for their last token, in a prefill step): the rows it
leaves out wait for the decode batch's next step instead of being gathered
again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from sglang.srt.layers.attention.decode.attention import (
    Pair,
    fill,
    gather,
    padded,
    rebuilt,
    row_by_row,
    with_prefix,
)
from sglang.srt.layers.attention.decode.blocks import (
    GROWTH,
    RAGGED,
    SHARED,
    SPARE_ROWS,
    Block,
    Plan,
    advance,
    common_pages,
    fits,
    slot_matrix,
)

__all__ = ["DecodeKVCache"]


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
        self._blocks: list[Block] = []
        self._plans: list[Plan] = []
        self._batch = 0
        self._direct = False
        self.gathered_rows = 0
        """Rows gathered from the pages so far (a sequence joining, or its pages changed)."""
        self.moved_rows = 0
        """Rows copied by rebuilds and packing so far (within a block, or to its new tensors)."""

    @property
    def live_rows(self) -> int:
        """How many rows hold a sequence's keys and values."""
        return sum(block.live for block in self._blocks)

    @property
    def blocks(self) -> int:
        """How many blocks the rows are in."""
        return len(self._blocks)

    @property
    def prefixes(self) -> list[int]:
        """The tokens each block holds once for all its rows (0: none)."""
        return [block.offset for block in self._blocks]

    @property
    def ragged(self) -> list[int]:
        """The batch indices of this step's sequences that attend row by row."""
        return [int(i) for plan in self._plans if plan.ragged for i in plan.batch.tolist()]

    def reset(self) -> None:
        """Forget every copy."""
        self._blocks, self._plans = [], []

    def invalidate(self, written_pages: set[int]) -> None:
        """Drop the rows that copied any of *written_pages* (a prefill step writes them)."""
        self._blocks = [b for b in self._blocks if written_pages.isdisjoint(b.prefix)]
        for block in self._blocks:
            for index, row in enumerate(block.rows):
                if row is not None and not row.page_set.isdisjoint(written_pages):
                    block.rows[index] = None

    def _match(
        self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int]
    ) -> list[tuple[Block, int] | None]:
        """Each sequence's row, if one holds its first ``seq_len - 1`` tokens; free the dead.

        When some sequence continues from its row, the step is the decode
        batch (or a mixed step, which holds all of it): a row it leaves out
        has lost its sequence. When none does, the step holds new sequences
        only (a prompt's one-token chunk, or prompts cached but for their
        last token, in a prefill step): the rows it leaves out wait for the
        decode batch's next step. Either way a row that copied a page this
        step writes into is dropped (a freed page handed to a new sequence).
        """
        ps = self.page_size
        writes = {pages[(n - 1) // ps] for pages, n in zip(page_tables, seq_lens, strict=True)}
        self._blocks = [b for b in self._blocks if writes.isdisjoint(b.prefix)]
        by_end: dict[tuple[int, int], list[tuple[Block, int]]] = {}
        for block in self._blocks:
            for index, row in enumerate(block.rows):
                if row is not None:
                    by_end.setdefault((row.length, row.pages[-1]), []).append((block, index))
        found: list[tuple[Block, int] | None] = []
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
        for block in self._blocks:
            for index, row in enumerate(block.rows):
                if row is None or (id(block), index) in claimed:
                    continue
                if claimed or not writes.isdisjoint(row.page_set):  # left out, or overwritten
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
            shares = any(  # then it goes to a block with a prefix, or a new one
                self._common(page_tables, seq_lens, i, j) * self.page_size >= SHARED
                for j in joining
                if j != i
            )
            block = next(  # a free row, the block's prefix, room, padding within RAGGED
                (
                    b
                    for b in sorted(self._blocks, key=lambda b: -b.offset)
                    if (b.offset or not shares)
                    and b.live + sum(row is None for _, row in members[id(b)]) < len(b.rows)
                    and b.offset < seq_lens[i] <= b.offset + b.capacity
                    and list(page_tables[i][: len(b.prefix)]) == b.prefix
                    and fits(
                        [seq_lens[j] - b.offset for j, _ in members[id(b)]], seq_lens[i] - b.offset
                    )
                ),
                None,
            )
            if block is None:
                block = self._new_block(page_tables, seq_lens, joining[n:])
                members[id(block)] = []
            members[id(block)].append((i, None))
        self._blocks = [b for b in self._blocks if members[id(b)] or b.live]
        self._plans = [
            self._plan(block, members[id(block)], page_tables, seq_lens)
            for block in self._blocks
            if members[id(block)]
        ]
        only = self._plans[0] if len(self._plans) == 1 else None
        self._direct = (  # one block, sequence i in row i: no gather or scatter of the batch
            only is not None and only.identity and only.batch.tolist() == list(range(self._batch))
        )

    def _common(
        self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int], i: int, j: int
    ) -> int:
        """The leading pages sequences *i* and *j* share (each keeping a token after them)."""
        most = min(seq_lens[i] - 1, seq_lens[j] - 1) // self.page_size
        return common_pages(page_tables[i], page_tables[j], most)

    def _new_block(
        self, page_tables: Sequence[Sequence[int]], seq_lens: Sequence[int], joining: list[int]
    ) -> Block:
        """A block for ``joining[0]`` and the shorter joining sequences that fit with it.

        When some of them start with the same :data:`SHARED` tokens or more (the
        same pages), the block holds the pages they all share once.
        """
        first, ps = joining[0], self.page_size
        pages, peers = page_tables[first], []
        for j in joining[1:]:
            common = self._common(page_tables, seq_lens, first, j)
            if common * ps >= SHARED:
                peers.append((j, common))
        shared = min((common for _, common in peers), default=0)
        fit = [seq_lens[first] - shared * ps]
        for j in joining[1:]:
            tail = seq_lens[j] - shared * ps
            if (
                tail > 0
                and list(page_tables[j][:shared]) == list(pages[:shared])
                and fits(fit, tail)
            ):
                fit.append(tail)
        block = Block([None] * (len(fit) + SPARE_ROWS), fit[0] + GROWTH)
        block.prefix, block.offset = list(pages[:shared]), shared * ps
        self._blocks.append(block)
        return block

    def _plan(
        self,
        block: Block,
        held: list[tuple[int, int | None]],
        page_tables: Sequence[Sequence[int]],
        seq_lens: Sequence[int],
    ) -> Plan:
        """Give the block's joining sequences rows, rebuild it if needed, and plan its step."""
        lens = [seq_lens[i] - block.offset for i, _ in held]  # after the prefix
        longest = max(lens)
        n = len(held)
        kept = {row for _, row in held if row is not None}
        free = iter(r for r in range(len(block.rows)) if block.rows[r] is None)
        rows = [row if row is not None else next(free) for _, row in held]
        used = max(rows) + 1
        waiting = sum(r is not None for r in block.rows[:used]) - len(kept)  # left out
        moved = packed = None
        if longest > block.capacity:
            # new tensors: its sequences in rows 0..n-1, room for more sequences and tokens
            pairs = [(row, new) for new, (_, row) in enumerate(held) if row is not None]
            moved = (self._tensor([o for o, _ in pairs]), self._tensor([m for _, m in pairs]))
            block.rows = [block.rows[row] if row is not None else None for _, row in held]
            block.rows += [None] * SPARE_ROWS
            block.capacity = longest + GROWTH
            block.old_layers, block.layers = block.layers, {}
            rows, used = list(range(n)), n
        elif 2 * (used - n - waiting) > n + waiting:  # mostly empty rows: pack them, in place
            for index in range(len(block.rows)):  # a waiting row may be packed over: drop it
                if index not in kept:
                    block.rows[index] = None
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
        tables = [page_tables[i] for i, _ in held]
        advance(block, rows, tables, [seq_lens[i] for i, _ in held], self.page_size)
        ragged = list(zip(rows, lens, strict=True))
        if block.offset or used * longest <= RAGGED * sum(lens):
            ragged = []
        plan = Plan(
            block=block,
            batch=self._tensor([i for i, _ in held]),
            rows=self._tensor(rows),
            positions=self._tensor(lens) - 1,
            fill_rows=self._tensor([rows[n] for n in fill]) if fill else None,
            fill_slots=(
                slot_matrix(
                    [tables[n] for n in fill],
                    max(lens[n] for n in fill),
                    block.offset,
                    self.page_size,
                    self.device,
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

    def _tensor(self, values: list[int]) -> torch.Tensor:
        return torch.tensor(values, dtype=torch.int64, device=self.device)

    def _copies(
        self, plan: Plan, layer_id: int, k_buf: torch.Tensor, dtype: torch.dtype
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The block's copies for this layer, built now if this step rebuilds them."""
        block = plan.block
        entry = block.layers.get(layer_id)
        if entry is not None:
            return entry
        shape = (len(block.rows), k_buf.shape[1], block.capacity, k_buf.shape[2])
        old = block.old_layers.pop(layer_id, None)
        fresh = block.layers[layer_id] = rebuilt(old, shape, plan.moved, dtype, self.device)
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
        self, plan: Plan, layer_id: int, q: torch.Tensor, kv: Pair, new_kv: Pair, scale: float
    ) -> torch.Tensor:
        """:meth:`attend` for the sequences of one block (*q* and *new_kv* are theirs)."""
        keys, values = self._copies(plan, layer_id, kv[0], new_kv[0].dtype)
        for pool, copy, new in zip(kv, (keys, values), new_kv, strict=True):
            if plan.packed is not None and plan.packed[0].numel():
                copy[plan.packed[1]] = copy[plan.packed[0]]
            if plan.fill_rows is not None and plan.fill_slots is not None:
                fill(copy, pool, plan.fill_rows, plan.fill_slots)
            copy[plan.rows, :, plan.positions] = new.to(copy.dtype)
        block, used = plan.block, plan.used
        suffix = (keys[:used, :, : plan.longest], values[:used, :, : plan.longest])
        if block.offset:
            shared = block.prefix_kv.get(layer_id)
            if shared is None:  # gathered once, when the block is new
                slots = slot_matrix([block.prefix], block.offset, 0, self.page_size, self.device)[0]
                shared = block.prefix_kv[layer_id] = gather(kv, slots)
            rows = None if plan.identity else plan.rows
            return with_prefix(q, shared, suffix, plan.mask, rows, scale)
        if plan.ragged:
            return row_by_row(q, keys, values, plan.ragged, scale)
        if plan.identity:
            return padded(q, *suffix, plan.mask, scale)
        queries = q.new_zeros((used, q.shape[1], q.shape[2]))
        queries[plan.rows] = q
        return padded(queries, *suffix, plan.mask, scale)[plan.rows]
