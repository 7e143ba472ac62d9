"""DeviceCapability holds two ints; platforms return it (or None)."""

from __future__ import annotations

from sglang.srt.platforms.device_mixin import DeviceCapability, DeviceMixin

from_strings = DeviceCapability("9", "0")  # expect-error
from_float = DeviceCapability(major=9.0, minor=0)  # expect-error
version: int = DeviceCapability(9, 0).as_version_str()  # expect-error


class MyDeviceMixin(DeviceMixin):
    def get_device_capability(self, device_id: int = 0) -> tuple[int, int, int]:  # expect-error
        return (9, 0, 0)
