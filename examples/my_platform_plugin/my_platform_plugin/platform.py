"""Step 5 of the quick start: ``MySRTPlatform``, the SRT platform for ``my_device``.

Beyond the guide's two overrides, the runtime needs the classes it builds
on the device: this stand-in reuses the reference runtime's paged KV pool,
page allocator and eager graph runner (a real device returns its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from my_platform_plugin.device import MyDeviceMixin
from sglang.srt.platforms.interface import SRTPlatform

if TYPE_CHECKING:
    from sglang.sdk.srt_runtime import GraphRunner, MHAKVPool, PagedAllocator

__all__ = ["MySRTPlatform"]


class MySRTPlatform(SRTPlatform, MyDeviceMixin):
    """SRT on ``my_device``."""

    api_version: ClassVar[Literal[1]] = 1
    """The SRT platform contract version this class implements."""

    def get_default_attention_backend(self) -> str:
        """The reference runtime's native attention over the paged cache."""
        return "torch_native"

    def support_cuda_graph(self) -> bool:
        """``my_device`` captures no graphs."""
        return False

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        """The reference runtime's paged KV pool."""
        from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

        return MHATokenToKVPool

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        """The reference runtime's page allocator."""
        from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator

        return PagedTokenToKVPoolAllocator

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """Eager execution."""
        from sglang.srt.model_executor.graph_runner import EagerGraphRunner

        return EagerGraphRunner
