"""Device operations keep the contract's parameter and result types."""

from __future__ import annotations

from sglang.srt.platforms.device_mixin import DeviceMixin


class MyDeviceMixin(DeviceMixin):
    def get_device_total_memory(self, device_id: int = 0) -> float:  # expect-error
        return 64e9

    def get_device_name(self, device_id: str = "0") -> str:  # expect-error
        return device_id

    def is_pin_memory_available(self) -> bool:  # expect-error
        return True
