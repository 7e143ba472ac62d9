"""``DecodeKVCache`` against attention computed straight from the pages.

A random walk over a small paged pool: sequences join (some sharing
another's leading pages, some on pages a finished sequence just freed),
finish, get extended by prefill steps and decode together, in shuffled
order. After every decode step each layer's output must equal SDPA over
the keys and values that the pages hold for that sequence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
import torch
from torch.nn import functional

from sglang.srt.layers.attention.decode import DecodeKVCache

HEADS, KV_HEADS, DIM, LAYERS = 4, 2, 8, 2


@dataclass
class Seq:
    pages: list[int]
    length: int


class World:
    """A paged pool of random keys and values, and the sequences that hold its pages."""

    def __init__(self, seed: int, page_size: int, slots: int = 1024) -> None:
        self.rng = random.Random(seed)
        self.gen = torch.Generator().manual_seed(seed)
        self.ps = page_size
        self.k = [torch.randn(slots, KV_HEADS, DIM, generator=self.gen) for _ in range(LAYERS)]
        self.v = [torch.randn(slots, KV_HEADS, DIM, generator=self.gen) for _ in range(LAYERS)]
        self.free = list(range(slots // page_size))
        self.seqs: list[Seq] = []
        self.cache = DecodeKVCache(page_size, torch.device("cpu"))

    def write(self, seq: Seq, start: int, end: int) -> None:
        """Give *seq* pages up to *end* and fresh random K/V for positions ``[start, end)``."""
        while len(seq.pages) * self.ps < end:
            seq.pages.append(self.free.pop())  # LIFO: freed pages come straight back
        for pos in range(start, end):
            slot = seq.pages[pos // self.ps] * self.ps + pos % self.ps
            for layer in range(LAYERS):
                self.k[layer][slot] = torch.randn(KV_HEADS, DIM, generator=self.gen)
                self.v[layer][slot] = torch.randn(KV_HEADS, DIM, generator=self.gen)

    def join(self) -> None:
        """Prefill a new sequence (sharing whole leading pages of another one, sometimes)."""
        shared: list[int] = []
        if self.seqs and self.rng.random() < 0.5:
            other = self.rng.choice(self.seqs)
            shared = other.pages[: self.rng.randint(0, (other.length - 1) // self.ps)]
        seq = Seq(list(shared), len(shared) * self.ps)
        end = seq.length + self.rng.randint(1, 20)
        written = self._pages_from(seq, seq.length, end)
        self.cache.invalidate(written)
        self.seqs.append(seq)

    def add(self, length: int) -> Seq:
        """Prefill a new sequence of *length* tokens on pages of its own."""
        seq = Seq([], 0)
        self.cache.invalidate(self._pages_from(seq, 0, length))
        self.seqs.append(seq)
        return seq

    def share(self, other: Seq, shared: int, own: int) -> Seq:
        """Prefill a sequence on *other*'s first *shared* tokens' pages and *own* new tokens."""
        seq = Seq(other.pages[: shared // self.ps], shared)
        self.cache.invalidate(self._pages_from(seq, shared, shared + own))
        self.seqs.append(seq)
        return seq

    def _pages_from(self, seq: Seq, start: int, end: int) -> set[int]:
        self.write(seq, start, end)
        seq.length = end
        return set(seq.pages[start // self.ps : -(-end // self.ps)])

    def finish(self) -> None:
        """End one sequence and free the pages no other sequence uses."""
        seq = self.seqs.pop(self.rng.randrange(len(self.seqs)))
        in_use = {page for other in self.seqs for page in other.pages}
        self.free.extend(page for page in seq.pages if page not in in_use)

    def decode(self) -> None:
        """Append one token to every sequence, in shuffled order, and check every layer."""
        self.rng.shuffle(self.seqs)
        self._step(self.seqs)

    def prefill_last_tokens(self, count: int) -> list[Seq]:
        """A prefill step of *count* new sequences that each compute one token.

        Each is a prompt the prefix cache holds but for its last token (on
        another sequence's whole leading pages), or the first one-token
        chunk of a prompt; the step runs through the decode copies without
        the sequences that are decoding. Its new pages come from the free
        list, where a finished sequence's pages wait.
        """
        new = []
        for _ in range(count):
            shared: list[int] = []
            other = self.rng.choice(self.seqs) if self.seqs else None
            if other is not None and other.length > self.ps and self.rng.random() < 0.7:
                shared = other.pages[: self.rng.randint(1, (other.length - 1) // self.ps)]
            new.append(Seq(list(shared), len(shared) * self.ps))
        self._step(new)
        self.seqs.extend(new)
        return new

    def _step(self, seqs: list[Seq]) -> None:
        for seq in seqs:
            self.write(seq, seq.length, seq.length + 1)
            seq.length += 1
        tables = [list(s.pages) for s in seqs]
        lens = [s.length for s in seqs]
        self.cache.begin(tables, lens)
        slots = torch.tensor(
            [s.pages[(s.length - 1) // self.ps] * self.ps + (s.length - 1) % self.ps for s in seqs]
        )
        for layer in range(LAYERS):
            q = torch.randn(len(seqs), HEADS, DIM, generator=self.gen)
            new = (self.k[layer][slots], self.v[layer][slots])
            out = self.cache.attend(layer, q, (self.k[layer], self.v[layer]), new, DIM**-0.5)
            for i, seq in enumerate(seqs):
                pos = torch.arange(seq.length)
                seq_slots = torch.tensor(seq.pages)[pos // self.ps] * self.ps + pos % self.ps
                keys = self.k[layer][seq_slots].transpose(0, 1).unsqueeze(0)
                values = self.v[layer][seq_slots].transpose(0, 1).unsqueeze(0)
                want = functional.scaled_dot_product_attention(
                    q[i].unsqueeze(0).unsqueeze(2), keys, values, scale=DIM**-0.5, enable_gqa=True
                )
                torch.testing.assert_close(out[i], want[0, :, 0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("page_size", [1, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decode_attention_equals_attention_over_the_pages(seed: int, page_size: int) -> None:
    world = World(seed, page_size)
    for _ in range(3):
        world.join()
    for _ in range(40):
        roll = world.rng.random()
        if roll < 0.15 and len(world.seqs) > 1:
            world.finish()
        elif roll < 0.35 and len(world.seqs) < 8:
            world.join()
        elif roll < 0.45 and len(world.seqs) < 8:
            world.prefill_last_tokens(world.rng.randint(1, 2))
        world.decode()


def test_a_prefill_step_of_one_token_sequences_keeps_the_decoding_rows() -> None:
    world = World(12, 4, slots=4096)
    decoding = [world.add(40 + n) for n in range(4)]
    world.decode()
    assert world.cache.gathered_rows == 4
    world.prefill_last_tokens(2)  # prompts cached but for their last token
    assert world.cache.gathered_rows == 6
    assert world.cache.live_rows == 6  # the four decoding rows wait for the next decode
    world.decode()  # checked against attention over the pages
    assert world.cache.gathered_rows == 6  # nobody gathered again
    world.seqs.remove(decoding[0])
    world.decode()  # a decode step that leaves a sequence out: its row is gone
    assert world.cache.live_rows == 5


def test_a_waiting_row_whose_page_a_one_token_step_writes_is_dropped() -> None:
    world = World(13, 4, slots=4096)
    (seq,) = [world.add(10)]
    world.decode()  # its row holds pages 0..2, the last one partly
    world.finish()  # its pages go back to the free list (last first) ...
    (new,) = world.prefill_last_tokens(1)  # ... and a new prompt's first token takes one
    assert set(new.pages) & set(seq.pages)
    assert world.cache.live_rows == 1  # the finished one's row did not wait


def test_rows_survive_prefills_of_other_sequences_and_finishes() -> None:
    world = World(3, 1)
    for _ in range(4):
        world.join()
    world.decode()
    assert world.cache.live_rows == 4
    world.join()  # a prefill of another sequence keeps the four rows
    assert world.cache.live_rows == 4
    world.finish()
    world.decode()  # the finished one's row is dropped, the new one gets a row
    assert world.cache.live_rows == 4


def test_a_row_whose_pages_are_rewritten_is_dropped() -> None:
    world = World(4, 2)
    world.join()
    world.decode()
    seq = world.seqs[0]
    world.cache.invalidate({seq.pages[0]})
    assert world.cache.live_rows == 0
    world.decode()  # gathered again from the pages: still right
    assert world.cache.live_rows == 1


def test_a_sequence_whose_leading_pages_changed_is_gathered_again() -> None:
    world = World(5, 1)
    world.join()
    world.decode()
    seq = world.seqs[0]
    replacement = world.free.pop()  # the prefix cache swapped its first page for another
    world.write(Seq([replacement], 0), 0, 1)
    seq.pages[0] = replacement
    world.decode()


def test_a_long_sequence_joining_short_ones_gets_a_block_of_its_own() -> None:
    world = World(6, 4)
    for _ in range(4):
        world.join()
    world.decode()
    assert world.cache.blocks == 1
    assert not world.cache.ragged  # similar lengths: one padded attention call
    long = world.add(400)
    for _ in range(3):
        world.decode()  # checked against attention over the pages
        assert world.cache.blocks == 2  # the short rows are not padded to 400
        assert not world.cache.ragged
    assert world.cache.gathered_rows == 5  # each sequence once
    assert world.cache.moved_rows == 0  # joining copied no row already held
    world.seqs.remove(long)
    world.decode()
    assert world.cache.blocks == 1


def test_sequences_joining_fill_free_rows_without_copying_the_held_ones() -> None:
    world = World(7, 1, slots=4096)
    for _ in range(6):
        world.add(50)
    world.decode()
    for _ in range(5):  # 5 more than the block's 4 spare rows: a second block
        world.add(50)
    world.decode()
    assert world.cache.blocks == 2
    assert world.cache.moved_rows == 0
    assert world.cache.gathered_rows == 11


def test_a_block_whose_sequences_outgrow_it_is_rebuilt_alone() -> None:
    world = World(8, 2, slots=4096)
    short = [world.add(10) for _ in range(2)]
    world.decode()
    for _ in range(2):
        world.add(300)
    world.decode()
    assert world.cache.blocks == 2
    for _ in range(128):  # the short ones reach 140 (capacity 11 + 128), the long ones 429
        world.decode()
    assert world.cache.moved_rows == len(short)  # the short block, once; the long one: never
    assert world.cache.gathered_rows == 4


def test_rows_of_very_uneven_lengths_in_one_block_attend_row_by_row() -> None:
    world = World(9, 4, slots=4096)
    a, b, c = world.add(200), world.add(190), world.add(10)
    world.decode()  # 3 x 201 padded for 403 needed: within 2x, one attention call
    assert world.cache.blocks == 1
    assert not world.cache.ragged
    world.seqs.remove(b)  # its row is left empty: 3 x 202 padded for 214
    world.decode()
    assert sorted(world.cache.ragged) == [0, 1]
    assert (a.length, c.length) == (202, 12)


def test_a_block_left_mostly_empty_packs_its_rows_in_place() -> None:
    world = World(10, 1, slots=4096)
    seqs = [world.add(50 + n) for n in range(8)]  # joining longest first: rows 7..0
    world.decode()
    for seq in seqs[2:]:  # rows 0 to 5 are left empty, rows 6 and 7 hold sequences
        world.seqs.remove(seq)
    world.decode()  # checked against attention over the pages
    assert world.cache.moved_rows == 2
    assert world.cache.blocks == 1
    world.decode()
    assert world.cache.moved_rows == 2


def test_sequences_sharing_a_prefix_hold_it_once() -> None:
    world = World(11, 4, slots=4096)
    base = world.add(100)
    world.decode()
    followers = [world.share(base, 96, 5 + n) for n in range(4)]  # 24 shared pages each
    world.decode()  # checked against attention over the pages, every layer
    assert sorted(world.cache.prefixes) == [0, 96]
    for _ in range(20):
        world.decode()
    world.seqs.remove(followers[0])
    world.decode()
    assert sorted(world.cache.prefixes) == [0, 96]
    world.cache.invalidate({base.pages[3]})  # a shared page rewritten: that block is gone
    assert sorted(world.cache.prefixes) == [0]
    world.decode()  # gathered again from the pages
