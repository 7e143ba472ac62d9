"""``DeviceMixin`` and the SRT platform identity types (documented path).

The objects are those of :mod:`sglang.sdk.device`, re-exported here so that
``from sglang.srt.platforms.device_mixin import DeviceMixin, PlatformEnum``
works as the plugin guide writes it.
"""

from sglang.sdk.device import CpuArchEnum, DeviceCapability, DeviceMixin, PlatformEnum

__all__ = ["CpuArchEnum", "DeviceCapability", "DeviceMixin", "PlatformEnum"]
