"""``PagedTokenToKVPoolAllocator``: a free list of KV-cache pages (no torch needed)."""

from __future__ import annotations

from collections.abc import Sequence

from sglang.srt.mem_cache.pages import PagedGeometry

__all__ = ["PagedTokenToKVPoolAllocator"]


class PagedTokenToKVPoolAllocator(PagedGeometry):
    """Hands out page indices ``0 .. num_pages - 1``, lowest first.

    Satisfies :class:`sglang.sdk.PagedAllocator`. Freeing a page twice, or
    one it never handed out, raises ``ValueError``.
    """

    def __init__(self, *, num_pages: int, page_size: int) -> None:
        super().__init__(num_pages=num_pages, page_size=page_size)
        self._free: list[int] = list(range(num_pages - 1, -1, -1))  # pop() gives the lowest
        self._used: set[int] = set()

    def alloc(self, num_pages: int) -> list[int] | None:
        """Return *num_pages* free pages, or ``None`` (taking nothing) if too few are free."""
        if num_pages < 0:
            raise ValueError(f"cannot allocate {num_pages} pages")
        if num_pages > len(self._free):
            return None
        pages = [self._free.pop() for _ in range(num_pages)]
        self._used.update(pages)
        return pages

    def free(self, pages: Sequence[int]) -> None:
        """Return *pages* to the free list."""
        unknown = [p for p in pages if p not in self._used]
        if unknown or len(set(pages)) != len(pages):
            raise ValueError(f"pages not allocated (or freed twice): {sorted(unknown or pages)}")
        self._used.difference_update(pages)
        self._free.extend(sorted(pages, reverse=True))
        self._free.sort(reverse=True)

    def available_pages(self) -> int:
        """Return the number of free pages."""
        return len(self._free)
