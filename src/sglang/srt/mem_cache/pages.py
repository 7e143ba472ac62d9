"""``PagedGeometry``: how many pages, of how many token slots (shared by pool and allocator)."""

from __future__ import annotations

__all__ = ["PagedGeometry"]


class PagedGeometry:
    """The page count and page size a KV pool or a page allocator is built with.

    Raises ``ValueError`` unless both are at least one.
    """

    def __init__(self, *, num_pages: int, page_size: int) -> None:
        if num_pages < 1 or page_size < 1:
            raise ValueError(
                f"need num_pages >= 1 and page_size >= 1, got {num_pages}, {page_size}"
            )
        self._num_pages = num_pages
        self._page_size = page_size

    @property
    def num_pages(self) -> int:
        """The number of pages."""
        return self._num_pages

    @property
    def page_size(self) -> int:
        """The number of token slots per page."""
        return self._page_size
