"""``BasePrefixCache``: what the scheduler asks of a prefix cache, and a match's result.

Two classes satisfy it: :class:`~sglang.srt.mem_cache.radix_cache.RadixCache`
(the default) and :class:`~sglang.srt.mem_cache.chunk_cache.ChunkCache`
(``--disable-radix-cache``: nothing is shared, a finished request's pages
go straight back to the allocator). The scheduler runs the same code over
either. Neither needs torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sglang.srt.mem_cache.sequence import SequenceState

__all__ = ["BasePrefixCache", "KVAccountingError", "MatchResult"]


class KVAccountingError(RuntimeError):
    """The KV pages do not add up: a page is lost, counted twice or shared unlocked."""


@dataclass(frozen=True)
class MatchResult:
    """The longest cached prefix of a token sequence, in whole pages.

    Attributes:
        pages: The pages holding the prefix, in token order.
        node: The cache's handle on the prefix (lock it to keep the pages).
        length: The prefix's length in tokens (a whole number of pages).
    """

    pages: tuple[int, ...]
    node: object | None
    length: int


class BasePrefixCache(Protocol):
    """A cache of computed KV pages keyed by the tokens they hold."""

    @property
    def evictable_pages(self) -> int:
        """Pages only the cache holds (no running request uses them): freed on demand."""
        ...

    @property
    def protected_pages(self) -> int:
        """Cached pages that running requests use (locked)."""
        ...

    def match_prefix(self, token_ids: list[int]) -> MatchResult:
        """The longest cached prefix of *token_ids* (nothing is locked)."""
        ...

    def lock(self, node: object | None) -> None:
        """Keep *node*'s pages (and its ancestors') from eviction until :meth:`unlock`."""
        ...

    def unlock(self, node: object | None) -> None:
        """Undo one :meth:`lock` of *node*."""
        ...

    def evict(self, num_pages: int) -> int:
        """Free at least *num_pages* unlocked pages if there are that many; return how many."""
        ...

    def cache_unfinished_req(self, seq: SequenceState) -> None:
        """Share *seq*'s computed whole pages, keep them locked for it, go on."""
        ...

    def cache_finished_req(self, seq: SequenceState) -> None:
        """Keep *seq*'s computed whole pages for later requests; free the rest; unlock."""
        ...

    def reset(self) -> None:
        """Drop every cached page (only when no request holds any)."""
        ...

    def check(self) -> None:
        """Raise :class:`KVAccountingError` if the cache's own counts are inconsistent."""
        ...
