"""The bookkeeping of :class:`~.cache.DecodeKVCache`: rows, blocks, each step's plan.

A :class:`Row` records which sequence's tokens a row of copies holds; a
:class:`Block` is rows that one attention call reads (and, when they share
a prefix, its keys and values once); a :class:`Plan` is what each layer does
with one block in one step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

__all__ = [
    "GROWTH",
    "RAGGED",
    "SHARED",
    "SPARE_ROWS",
    "Block",
    "Plan",
    "Row",
    "advance",
    "common_pages",
    "fits",
    "slot_matrix",
]

GROWTH = 128
"""Positions a block holds beyond its longest sequence when it is (re)built."""

SPARE_ROWS = 4
"""Rows a block holds beyond its sequences when it is (re)built, for sequences that join."""

RAGGED = 2
"""A block's padded work (rows x longest) may be at most this many times the work its
sequences need; beyond it, each row attends over its own length alone (one call per row)."""

SHARED = 64
"""Leading tokens (on the same pages) that sequences joining together must share for their
block to hold those tokens' keys and values once, for all of them."""


@dataclass
class Row:
    """What one row holds: a sequence's first ``length`` tokens, read from ``pages``."""

    pages: list[int]
    length: int
    page_set: set[int]


@dataclass
class Block:
    """Rows that one attention call reads, and their per-layer copies."""

    rows: list[Row | None]
    capacity: int  # positions per row, after the prefix
    prefix: list[int] = field(default_factory=list)  # the pages every row starts with
    offset: int = 0  # the prefix's tokens
    prefix_kv: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    old_layers: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)

    @property
    def live(self) -> int:
        """How many rows hold a sequence."""
        return sum(row is not None for row in self.rows)


@dataclass
class Plan:
    """What each layer does with one block in one step (decided once, when the step begins)."""

    block: Block
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


def fits(lens: list[int], new: int) -> bool:
    """Whether a block attending over *lens* and *new* pads within :data:`RAGGED`."""
    return (len(lens) + 1) * max([new, *lens]) <= RAGGED * (sum(lens) + new)


def common_pages(a: Sequence[int], b: Sequence[int], most: int) -> int:
    """How many leading pages page tables *a* and *b* share, at most *most*."""
    common = 0
    while common < most and a[common] == b[common]:
        common += 1
    return common


def advance(
    block: Block,
    rows: list[int],
    page_tables: Sequence[Sequence[int]],
    seq_lens: Sequence[int],
    page_size: int,
) -> None:
    """Record what each row holds after this step (a new row: the sequence's pages)."""
    for index, pages, seq_len in zip(rows, page_tables, seq_lens, strict=True):
        row = block.rows[index]
        if row is None:
            held = list(pages[: -(-seq_len // page_size)])
            block.rows[index] = Row(held, seq_len, set(held))
            continue
        row.length = seq_len
        if len(row.pages) * page_size < seq_len:
            page = pages[(seq_len - 1) // page_size]
            row.pages.append(page)
            row.page_set.add(page)


def slot_matrix(
    page_tables: Sequence[Sequence[int]],
    longest: int,
    start: int,
    page_size: int,
    device: torch.device,
) -> torch.Tensor:
    """The pool slots of positions ``start .. start + longest - 1`` of each sequence.

    ``(sequences, longest)``; padding reads slot 0.
    """
    width = -(-(start + longest) // page_size)
    rows = [list(p[:width]) + [0] * (width - len(p[:width])) for p in page_tables]
    flat = [page for row in rows for page in row]
    table = torch.tensor(flat, dtype=torch.int64, device=device).view(len(rows), width)
    pos = torch.arange(start, start + longest, device=device)
    return table[:, pos // page_size] * page_size + pos % page_size
