"""The built-in SRT platforms: CPU, CUDA, ROCm and XPU.

Each class composes :class:`~sglang.runtime.builtin.ops.BuiltinDeviceOps`
(the device operations, shared with diffusion) with
:class:`~sglang.sdk.srt.SRTPlatform` and names its device family and SRT
``PlatformEnum`` member. The capability flags and subsystem names are the
only SRT-specific parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from sglang.runtime.builtin import families
from sglang.runtime.builtin.ops import BuiltinDeviceOps
from sglang.sdk.capabilities import Capability
from sglang.sdk.device import DeviceCapability, PlatformEnum
from sglang.sdk.srt import SRTPlatform

if TYPE_CHECKING:
    from sglang.sdk.srt_runtime import GraphRunner, MHAKVPool, PagedAllocator, QuantizationConfig

__all__ = [
    "BuiltinSRTPlatform",
    "CpuSRTPlatform",
    "CudaSRTPlatform",
    "RocmSRTPlatform",
    "XpuSRTPlatform",
]


class BuiltinSRTPlatform(BuiltinDeviceOps, SRTPlatform):
    """Common base of the built-in SRT platforms.

    Attributes:
        attention_backend: The default attention backend name: the reference
            runtime's ``torch_native`` backend on every built-in, the one
            registered backend that runs on all of them.
        graph_capture: Whether whole-graph and piecewise capture are supported:
            ``False`` on every built-in platform, because the reference
            runtime's graph runner (``EagerGraphRunner``) captures nothing. A
            subclass whose :attr:`graph_runner_cls` really captures sets it.
        fp8_min_capability: The lowest device capability with FP8 support,
            or ``None`` when the family has none.
        kv_pool_cls: ``"module:Class"`` of the KV pool the factory returns.
        paged_allocator_cls: ``"module:Class"`` of the page allocator.
        graph_runner_cls: ``"module:Class"`` of the graph runner.
    """

    attention_backend: ClassVar[str] = "torch_native"
    graph_capture: ClassVar[bool] = False
    fp8_min_capability: ClassVar[DeviceCapability | None] = None
    kv_pool_cls: ClassVar[str] = "sglang.srt.mem_cache.memory_pool:MHATokenToKVPool"
    paged_allocator_cls: ClassVar[str] = (
        "sglang.srt.mem_cache.allocator:PagedTokenToKVPoolAllocator"
    )
    graph_runner_cls: ClassVar[str] = "sglang.srt.model_executor.graph_runner:EagerGraphRunner"

    def support_cuda_graph(self) -> bool:
        """Whether whole-graph capture (CUDA graphs) is supported."""
        return self.graph_capture

    def support_piecewise_cuda_graph(self) -> bool:
        """Whether piecewise graph capture (torch.compile backend) is supported."""
        return self.graph_capture

    def supports_fp8(self) -> bool:
        """Whether FP8 is supported: the device 0 capability reaches ``fp8_min_capability``."""
        if self.fp8_min_capability is None:
            return False
        capability = self.get_device_capability(0)
        return capability is not None and capability >= self.fp8_min_capability

    def get_default_attention_backend(self) -> str:
        """Return :attr:`attention_backend`."""
        return self.attention_backend

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        """Return :attr:`kv_pool_cls` (the reference runtime's paged pool; imports torch)."""
        cls: type[MHAKVPool] = _runtime_class(self.kv_pool_cls)
        return cls

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        """Return :attr:`paged_allocator_cls` (the reference runtime's page allocator)."""
        cls: type[PagedAllocator] = _runtime_class(self.paged_allocator_cls)
        return cls

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """Return :attr:`graph_runner_cls` (eager: the reference runtime captures no graphs)."""
        cls: type[GraphRunner] = _runtime_class(self.graph_runner_cls)
        return cls

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        """Return the reference runtime's config for *quantization* (``none``, ``w8a16_int8``).

        Raises:
            ValueError: The runtime has no such method (the message lists them).
        """
        builtin = _runtime_class(
            "sglang.srt.layers.quantization.registry:builtin_quantization_config"
        )
        config: QuantizationConfig = builtin(quantization)
        return config


def _runtime_class(reference: str) -> Any:
    """Import a class of the reference runtime by its ``"module:Class"`` reference.

    The engine names the runtime's classes instead of importing them, as the
    runtime tables name the built-in platforms: the runtime builds on the
    engine, never the other way round.
    """
    from sglang.runtime.resolver import resolve

    return resolve(reference)


class CpuSRTPlatform(BuiltinSRTPlatform):
    """SRT on the host CPU (selected by ``SGLANG_USE_CPU_ENGINE=1``)."""

    _family = families.CPU
    _enum = PlatformEnum.CPU
    _capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.MULTI_DEVICE})
    """Tensor-parallel ranks share host memory (gloo), so several run on one machine."""


class CudaSRTPlatform(BuiltinSRTPlatform):
    """SRT on NVIDIA GPUs."""

    _family = families.CUDA
    _enum = PlatformEnum.CUDA
    fp8_min_capability = DeviceCapability(8, 9)


class RocmSRTPlatform(BuiltinSRTPlatform):
    """SRT on AMD GPUs."""

    _family = families.ROCM
    _enum = PlatformEnum.ROCM
    fp8_min_capability = DeviceCapability(9, 4)


class XpuSRTPlatform(BuiltinSRTPlatform):
    """SRT on Intel GPUs."""

    _family = families.XPU
    _enum = PlatformEnum.XPU
