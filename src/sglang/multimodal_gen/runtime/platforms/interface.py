"""The diffusion ``Platform`` base class (documented path).

Re-exports :class:`sglang.sdk.diffusion.Platform` and the diffusion
``PlatformEnum``, which is a different type from SRT's.
"""

from sglang.sdk.device import CpuArchEnum, DeviceCapability
from sglang.sdk.diffusion import Platform, PlatformEnum

__all__ = ["CpuArchEnum", "DeviceCapability", "Platform", "PlatformEnum"]
