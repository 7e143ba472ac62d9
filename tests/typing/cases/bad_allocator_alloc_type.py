"""An allocator whose alloc() returns a count instead of page indices."""

from __future__ import annotations

from collections.abc import Sequence

from sglang.sdk import PagedAllocator


class CountingAllocator:
    def __init__(self, *, num_pages: int, page_size: int) -> None:
        self.num_pages = num_pages
        self.page_size = page_size

    def alloc(self, num_pages: int) -> int:
        return num_pages

    def free(self, pages: Sequence[int]) -> None:
        pass

    def available_pages(self) -> int:
        return 0


allocator_cls: type[PagedAllocator] = CountingAllocator  # expect-error
