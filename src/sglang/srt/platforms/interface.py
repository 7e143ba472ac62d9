"""``SRTPlatform``, the base class of SRT platforms (documented path).

Re-exports :class:`sglang.sdk.srt.SRTPlatform` together with the identity
types, so a platform module needs a single import.
"""

from sglang.sdk.device import CpuArchEnum, DeviceCapability, DeviceMixin, PlatformEnum
from sglang.sdk.srt import SRTPlatform

__all__ = ["CpuArchEnum", "DeviceCapability", "DeviceMixin", "PlatformEnum", "SRTPlatform"]
