"""The built-in paged allocator and MHA KV pool."""

from __future__ import annotations

import pytest
import torch

from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool


def test_alloc_free_and_free_count() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=4, page_size=16)
    assert (allocator.num_pages, allocator.page_size, allocator.available_pages()) == (4, 16, 4)
    first = allocator.alloc(3)
    assert first == [0, 1, 2]
    assert allocator.available_pages() == 1
    assert allocator.alloc(2) is None  # too few free: nothing taken
    assert allocator.available_pages() == 1
    allocator.free([1])
    assert allocator.alloc(2) == [1, 3]
    allocator.free([0, 1, 2, 3])
    assert allocator.available_pages() == 4
    assert allocator.alloc(0) == []


def test_double_free_and_foreign_pages_raise() -> None:
    allocator = PagedTokenToKVPoolAllocator(num_pages=2, page_size=1)
    pages = allocator.alloc(1)
    assert pages is not None
    allocator.free(pages)
    with pytest.raises(ValueError, match="freed twice"):
        allocator.free(pages)
    with pytest.raises(ValueError, match="not allocated"):
        allocator.free([7])
    with pytest.raises(ValueError, match="num_pages >= 1"):
        PagedTokenToKVPoolAllocator(num_pages=0, page_size=1)


def test_pool_writes_slots_per_layer() -> None:
    pool = MHATokenToKVPool(
        num_pages=3,
        page_size=2,
        num_layers=2,
        num_kv_heads=2,
        head_dim=4,
        dtype=torch.float32,
        device=torch.device("cpu"),
    )
    k, v = torch.randn(2, 2, 4), torch.randn(2, 2, 4)
    loc = torch.tensor([5, 0])
    pool.set_kv_buffer(1, loc, k, v)
    k_buf, v_buf = pool.get_kv_buffer(1)
    assert k_buf.shape == (6, 2, 4)
    torch.testing.assert_close(k_buf[loc], k)
    torch.testing.assert_close(v_buf[loc], v)
    assert not pool.get_kv_buffer(0)[0].any()  # layer 0 untouched
    assert (
        pool.bytes_per_page() == 2 * 2 * 2 * 2 * 4 * 4
    )  # slots * layers * (K,V) * heads * dim * 4B
