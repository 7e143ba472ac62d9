"""``ChunkCache``: the prefix cache of ``--disable-radix-cache``, which keeps nothing.

Every request computes its whole prompt; a finished request's pages go
straight back to the allocator. It has :class:`RadixCache`'s interface
(:class:`~sglang.srt.mem_cache.base_prefix_cache.BasePrefixCache`), so the
scheduler does not branch on whether the cache is on.
"""

from __future__ import annotations

from sglang.sdk.srt_runtime import PagedAllocator
from sglang.srt.mem_cache.base_prefix_cache import MatchResult
from sglang.srt.mem_cache.sequence import SequenceState

__all__ = ["ChunkCache"]

_NOTHING = MatchResult((), None, 0)


class ChunkCache:
    """No sharing: matches nothing, evicts nothing, frees a finished request's pages.

    Args:
        allocator: The page allocator the pages come from.
    """

    def __init__(self, allocator: PagedAllocator) -> None:
        self.allocator = allocator

    @property
    def evictable_pages(self) -> int:
        """Always 0: nothing is kept."""
        return 0

    @property
    def protected_pages(self) -> int:
        """Always 0: nothing is shared."""
        return 0

    def match_prefix(self, token_ids: list[int]) -> MatchResult:
        """The empty prefix."""
        return _NOTHING

    def lock(self, node: object | None) -> None:
        """Nothing to lock."""

    def unlock(self, node: object | None) -> None:
        """Nothing to unlock."""

    def evict(self, num_pages: int) -> int:
        """Nothing to evict: return 0."""
        return 0

    def cache_unfinished_req(self, seq: SequenceState) -> None:
        """Nothing to share."""

    def cache_finished_req(self, seq: SequenceState) -> None:
        """Free all of *seq*'s pages."""
        self.allocator.free(seq.pages)
        seq.pages, seq.cached_len, seq.shared_pages = [], 0, 0

    def reset(self) -> None:
        """Nothing to drop."""

    def check(self) -> None:
        """Nothing to check."""
