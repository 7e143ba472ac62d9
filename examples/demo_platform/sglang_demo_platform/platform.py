"""``DemoSRTPlatform``: the demo device for the SRT runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from sglang.sdk.capabilities import Capability
from sglang.srt.platforms.interface import SRTPlatform
from sglang_demo_platform.device import DemoDeviceMixin

if TYPE_CHECKING:
    from sglang.sdk.srt_runtime import GraphRunner, MHAKVPool, PagedAllocator, QuantizationConfig

__all__ = ["DemoSRTPlatform"]


class DemoSRTPlatform(SRTPlatform, DemoDeviceMixin):
    """SRT on the demo device."""

    api_version: ClassVar[Literal[1]] = 1
    """The SRT platform contract version this class implements."""

    _capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.MULTI_DEVICE})
    """Ranks share host memory, so several tensor-parallel ranks run on one machine."""

    _init_backend_calls: ClassVar[int] = 0
    """How often :meth:`init_backend` ran in this process (for the demo and tests)."""

    def get_default_attention_backend(self) -> str:
        """The demo attention backend (native attention that counts its calls)."""
        return "demo"

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        """The demo KV pool: paged, on host memory, counting its writes."""
        from sglang_demo_platform.runtime import DemoKVPool

        return DemoKVPool

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        """The reference runtime's page allocator."""
        from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator

        return PagedTokenToKVPoolAllocator

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """Eager: the demo device captures no graphs."""
        from sglang.srt.model_executor.graph_runner import EagerGraphRunner

        return EagerGraphRunner

    def support_cuda_graph(self) -> bool:
        """No graph capture on the demo device."""
        return False

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        """The runtime's own config for every ``--quantization`` name (host memory runs them).

        A device with its own kernels returns its config object here for the
        names it accelerates, and raises for the ones it cannot run.
        """
        return None

    def get_dispatch_key_name(self) -> str:
        """Fused ops dispatch to ``forward_demo()`` where one exists."""
        return "demo"

    def init_backend(self) -> None:
        """One-time backend setup: register the demo attention backend and fused ops."""
        type(self)._init_backend_calls += 1
        from sglang_demo_platform.runtime import install

        install()
