"""``RadixCache``: matching, sharing, locking, LRU eviction and its accounting (no torch)."""

from __future__ import annotations

import random

import pytest

from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator
from sglang.srt.mem_cache.base_prefix_cache import KVAccountingError
from sglang.srt.mem_cache.chunk_cache import ChunkCache
from sglang.srt.mem_cache.radix_cache import RadixCache
from sglang.srt.mem_cache.sequence import SequenceState


def admit(
    cache: RadixCache, allocator: PagedTokenToKVPoolAllocator, ids: list[int]
) -> SequenceState:
    """What the scheduler does at admission: reuse the match, allocate the rest, lock."""
    match = cache.match_prefix(ids[:-1])
    cache.lock(match.node)
    need = -(-len(ids) // allocator.page_size) - len(match.pages)
    if need > allocator.available_pages():
        cache.evict(need - allocator.available_pages())
    pages = allocator.alloc(need)
    assert pages is not None
    seq = SequenceState(list(ids), [*match.pages, *pages], match.length)
    seq.shared_pages, seq.cache_node = len(match.pages), match.node
    return seq


def computed(seq: SequenceState) -> SequenceState:
    seq.cached_len = len(seq.token_ids)
    return seq


def held(cache: RadixCache, allocator: PagedTokenToKVPoolAllocator, *seqs: SequenceState) -> int:
    own = sum(len(s.pages) - s.shared_pages for s in seqs)
    return allocator.available_pages() + cache.evictable_pages + cache.protected_pages + own


@pytest.mark.parametrize("page_size", [1, 4])
def test_a_finished_prefix_is_matched_in_whole_pages(page_size: int) -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=64, page_size=page_size)
    cache = RadixCache(allocator)
    first = computed(admit(cache, allocator, list(range(10))))
    cache.cache_finished_req(first)
    assert first.pages == []
    match = cache.match_prefix([*range(10), 99])
    assert match.length == 10 // page_size * page_size
    assert len(match.pages) == match.length // page_size
    other = cache.match_prefix([5, 6, 7])
    assert other.length == 0
    cache.check()
    assert held(cache, allocator) == 64


def test_a_diverging_request_splits_a_node_and_shares_the_common_pages() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=32, page_size=2)
    cache = RadixCache(allocator)
    a = computed(admit(cache, allocator, [1, 2, 3, 4, 5, 6, 7, 8]))
    cache.cache_finished_req(a)
    b = admit(cache, allocator, [1, 2, 3, 4, 9, 9, 9])
    assert (b.cached_len, b.shared_pages) == (4, 2)
    assert cache.protected_pages == 2  # the split's upper half is locked, the rest not
    assert cache.evictable_pages == 2
    cache.check()
    computed(b)
    cache.cache_finished_req(b)
    assert cache.protected_pages == 0
    assert cache.evictable_pages == 2 + 2 + 1  # shared, a's tail, b's whole tail page
    cache.check()
    assert held(cache, allocator) == 32


def test_locked_pages_survive_eviction_and_leaves_go_least_recently_used_first() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=16, page_size=1)
    cache = RadixCache(allocator)
    for start in (100, 200, 300):
        cache.cache_finished_req(computed(admit(cache, allocator, [start + i for i in range(4)])))
    user = admit(cache, allocator, [100, 101, 102, 103, 7])  # locks the 100s
    cache.match_prefix([200, 201, 202])  # a match alone is not a use
    assert cache.evict(3) == 4  # the oldest unlocked leaf: the 200s, as a whole
    assert cache.match_prefix([200, 201, 202]).length == 0
    assert cache.match_prefix([300, 301, 302]).length == 3
    assert cache.evict(100) == 4  # everything unlocked
    assert cache.match_prefix([100, 101, 102]).length == 3  # locked: kept
    cache.check()
    computed(user)
    cache.cache_finished_req(user)
    assert held(cache, allocator) == 16


def test_a_request_that_computed_a_cached_prefix_twice_gives_its_duplicates_back() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=16, page_size=2)
    cache = RadixCache(allocator)
    ids = [1, 2, 3, 4, 5, 6]
    a, b = admit(cache, allocator, ids), admit(cache, allocator, ids)  # same round: no match
    cache.cache_unfinished_req(computed(a))
    cache.cache_unfinished_req(computed(b))
    assert b.pages == a.pages  # b now reads a's pages; its own went back to the allocator
    assert allocator.available_pages() == 16 - 3
    cache.check()
    cache.cache_finished_req(a)
    cache.cache_finished_req(b)
    assert (cache.protected_pages, cache.evictable_pages) == (0, 3)
    assert held(cache, allocator) == 16


def test_reset_frees_everything_and_refuses_while_locked() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=8, page_size=1)
    cache = RadixCache(allocator)
    cache.cache_finished_req(computed(admit(cache, allocator, [1, 2, 3])))
    user = admit(cache, allocator, [1, 2, 3, 4])
    with pytest.raises(KVAccountingError, match="locked by requests"):
        cache.reset()
    cache.cache_finished_req(computed(user))
    cache.reset()
    assert allocator.available_pages() == 8
    assert cache.match_prefix([1, 2, 3]).length == 0


def test_unlocking_more_than_locking_is_an_accounting_error() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=8, page_size=1)
    cache = RadixCache(allocator)
    cache.cache_finished_req(computed(admit(cache, allocator, [1, 2, 3])))
    node = cache.match_prefix([1, 2, 3]).node
    with pytest.raises(KVAccountingError, match="unlocked more often"):
        cache.unlock(node)


def test_random_traffic_keeps_every_page_accounted_for() -> None:
    rng = random.Random(0)
    allocator = PagedTokenToKVPoolAllocator(num_pages=96, page_size=4)
    cache = RadixCache(allocator)
    prefixes = [[rng.randrange(50) for _ in range(rng.randrange(1, 24))] for _ in range(6)]
    running: list[SequenceState] = []
    for _ in range(400):
        if running and (rng.random() < 0.4 or allocator.available_pages() < 12):
            seq = running.pop(rng.randrange(len(running)))
            seq.token_ids.extend(rng.randrange(50) for _ in range(rng.randrange(3)))
            seq.cached_len = len(seq.token_ids) - 1  # the last output token has no KV yet
            need = -(-len(seq.token_ids) // 4) - len(seq.pages)
            if need > 0:
                got = allocator.alloc(need)
                if got is None:
                    seq.token_ids = seq.token_ids[: len(seq.pages) * 4]
                    seq.cached_len = len(seq.token_ids)
                else:
                    seq.pages.extend(got)
            cache.cache_finished_req(seq)
        elif cache.evictable_pages + allocator.available_pages() >= 12:
            ids = rng.choice(prefixes) + [rng.randrange(50) for _ in range(rng.randrange(1, 12))]
            seq = computed(admit(cache, allocator, ids))
            if rng.random() < 0.5:
                cache.cache_unfinished_req(seq)
            running.append(seq)
        cache.check()
        assert held(cache, allocator, *running) == 96
        assert len(cache.pages()) == cache.evictable_pages + cache.protected_pages
    for seq in running:
        cache.cache_finished_req(seq)
    cache.reset()
    assert allocator.available_pages() == 96


def test_the_chunk_cache_keeps_nothing() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=4, page_size=1)
    cache = ChunkCache(allocator)
    pages = allocator.alloc(3)
    assert pages is not None
    seq = SequenceState([1, 2, 3], pages, 3)
    assert cache.match_prefix([1, 2, 3]).length == 0
    cache.cache_unfinished_req(seq)
    cache.cache_finished_req(seq)
    assert (allocator.available_pages(), cache.evictable_pages, cache.evict(4)) == (4, 0, 0)
