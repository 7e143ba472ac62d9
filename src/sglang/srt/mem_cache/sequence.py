"""``SequenceState``: one sequence's tokens, its KV pages and how much of it is computed."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SequenceState"]


@dataclass
class SequenceState:
    """A sequence being processed: its tokens, its pages and how much is cached.

    The first :attr:`shared_pages` of :attr:`pages` belong to the prefix
    cache (a locked path of :class:`~sglang.srt.mem_cache.radix_cache.RadixCache`,
    read by other sequences too); the rest are this sequence's own.

    Attributes:
        token_ids: Every token so far (prompt and generated).
        pages: The KV pages holding its tokens, in order.
        cached_len: How many leading tokens have their keys and values in the pages.
        fill_len: How many leading tokens the next step leaves computed
            (``None``: all of them). A chunked prefill computes a prompt
            a chunk at a time by raising it step by step.
        shared_pages: How many leading pages the prefix cache owns.
        cache_node: The prefix cache's handle on those pages (its lock).
    """

    token_ids: list[int]
    pages: list[int] = field(default_factory=list)
    cached_len: int = 0
    fill_len: int | None = None
    shared_pages: int = 0
    cache_node: object | None = None

    @property
    def target_len(self) -> int:
        """How many leading tokens are computed after the next step."""
        return len(self.token_ids) if self.fill_len is None else self.fill_len
