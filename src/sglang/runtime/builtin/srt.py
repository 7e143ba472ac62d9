"""The built-in SRT platforms: CPU, CUDA, ROCm and XPU.

Each class composes :class:`~sglang.runtime.builtin.ops.BuiltinDeviceOps`
(the device operations, shared with diffusion) with
:class:`~sglang.sdk.srt.SRTPlatform` and names its device family and SRT
``PlatformEnum`` member. The capability flags and subsystem names are the
only SRT-specific parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from sglang.runtime.builtin import families
from sglang.runtime.builtin.ops import BuiltinDeviceOps
from sglang.sdk.device import DeviceCapability, PlatformEnum
from sglang.sdk.srt import SRTPlatform

if TYPE_CHECKING:
    from sglang.sdk.srt_runtime import GraphRunner, MHAKVPool, PagedAllocator

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
        attention_backend: The default attention backend name.
        graph_capture: Whether whole-graph and piecewise capture are supported.
        fp8_min_capability: The lowest device capability with FP8 support,
            or ``None`` when the family has none.
    """

    attention_backend: ClassVar[str] = "torch_native"
    graph_capture: ClassVar[bool] = False
    fp8_min_capability: ClassVar[DeviceCapability | None] = None

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
        """Return the built-in paged pool, ``MHATokenToKVPool`` (imports torch)."""
        from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

        return MHATokenToKVPool

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        """Return the built-in page allocator, ``PagedTokenToKVPoolAllocator``."""
        from sglang.srt.mem_cache.allocator import PagedTokenToKVPoolAllocator

        return PagedTokenToKVPoolAllocator

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        """Return ``EagerGraphRunner``: no graph capture in the reference runtime yet."""
        from sglang.srt.model_executor.graph_runner import EagerGraphRunner

        return EagerGraphRunner


class CpuSRTPlatform(BuiltinSRTPlatform):
    """SRT on the host CPU (selected by ``SGLANG_USE_CPU_ENGINE=1``)."""

    _family = families.CPU
    _enum = PlatformEnum.CPU


class CudaSRTPlatform(BuiltinSRTPlatform):
    """SRT on NVIDIA GPUs."""

    _family = families.CUDA
    _enum = PlatformEnum.CUDA
    attention_backend = "flashinfer"
    graph_capture = True
    fp8_min_capability = DeviceCapability(8, 9)


class RocmSRTPlatform(BuiltinSRTPlatform):
    """SRT on AMD GPUs."""

    _family = families.ROCM
    _enum = PlatformEnum.ROCM
    attention_backend = "triton"
    graph_capture = True
    fp8_min_capability = DeviceCapability(9, 4)


class XpuSRTPlatform(BuiltinSRTPlatform):
    """SRT on Intel GPUs."""

    _family = families.XPU
    _enum = PlatformEnum.XPU
    attention_backend = "intel_xpu"
