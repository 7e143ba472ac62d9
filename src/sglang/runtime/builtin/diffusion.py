"""The built-in diffusion platforms: cpu, cuda, rocm, xpu, mps, npu and musa.

Each class composes :class:`~sglang.runtime.builtin.ops.BuiltinDeviceOps`
(the device operations, shared with SRT) with the diffusion
:class:`~sglang.sdk.diffusion.Platform` and names its device family and
diffusion ``PlatformEnum`` member.
"""

from __future__ import annotations

from sglang.runtime.builtin import families
from sglang.runtime.builtin.ops import BuiltinDeviceOps
from sglang.sdk.diffusion import Platform, PlatformEnum

__all__ = [
    "BuiltinDiffusionPlatform",
    "CpuPlatform",
    "CudaPlatform",
    "MpsPlatform",
    "MusaPlatform",
    "NpuPlatform",
    "RocmPlatform",
    "XpuPlatform",
]


class BuiltinDiffusionPlatform(BuiltinDeviceOps, Platform):
    """Common base of the built-in diffusion platforms."""

    def get_attn_backend_cls_str(self, selected_backend: str | None, head_size: int) -> str:
        """The selected backend, else ``TORCH_SDPA`` (an ``AttentionBackendEnum`` name)."""
        return selected_backend or "TORCH_SDPA"


class CpuPlatform(BuiltinDiffusionPlatform):
    """Diffusion on the host CPU: the last built-in fallback."""

    _family = families.CPU
    _enum = PlatformEnum.CPU


class CudaPlatform(BuiltinDiffusionPlatform):
    """Diffusion on NVIDIA GPUs."""

    _family = families.CUDA
    _enum = PlatformEnum.CUDA


class RocmPlatform(BuiltinDiffusionPlatform):
    """Diffusion on AMD GPUs."""

    _family = families.ROCM
    _enum = PlatformEnum.ROCM


class XpuPlatform(BuiltinDiffusionPlatform):
    """Diffusion on Intel GPUs (detected automatically, never selected by name)."""

    _family = families.XPU
    _enum = PlatformEnum.XPU


class MpsPlatform(BuiltinDiffusionPlatform):
    """Diffusion on Apple GPUs."""

    _family = families.MPS
    _enum = PlatformEnum.MPS


class NpuPlatform(BuiltinDiffusionPlatform):
    """Diffusion on Huawei Ascend NPUs (needs ``torch_npu``)."""

    _family = families.NPU
    _enum = PlatformEnum.NPU


class MusaPlatform(BuiltinDiffusionPlatform):
    """Diffusion on Moore Threads GPUs (needs ``torch_musa``)."""

    _family = families.MUSA
    _enum = PlatformEnum.MUSA
