"""The built-in KV cache: a paged MHA pool and its page allocator.

The runtime takes both classes from ``current_platform``
(``get_mha_kv_pool_cls()``, ``get_paged_allocator_cls()``); the built-in
platforms return :class:`~sglang.srt.mem_cache.memory_pool.MHATokenToKVPool`
and :class:`~sglang.srt.mem_cache.allocator.PagedTokenToKVPoolAllocator`.
"""
