"""``DemoDeviceMixin``: the demo device's identity and device operations (SRT)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.srt.platforms.device_mixin import DeviceCapability, DeviceMixin, PlatformEnum
from sglang_demo_platform import memory

if TYPE_CHECKING:
    import torch

__all__ = ["DemoDeviceMixin"]


class DemoDeviceMixin(DeviceMixin):
    """The demo device: named "demo", allocating torch tensors in host memory."""

    _enum = PlatformEnum.OOT
    device_name = "demo"
    device_type = "cpu"  # torch device type: the demo device lives in host memory

    def get_device(self, local_rank: int) -> torch.device:
        """Every rank uses host memory."""
        import torch

        return torch.device("cpu")

    def set_device(self, device: torch.device) -> None:
        """Nothing to select: there is one host memory."""

    def get_device_name(self, device_id: int = 0) -> str:
        """Return ``"Demo device N"``."""
        return f"Demo device {device_id}"

    def get_device_uuid(self, device_id: int = 0) -> str:
        """Return a stable identifier per device index."""
        return f"demo-{device_id:04d}"

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """The demo device reports capability 1.0."""
        return DeviceCapability(*memory.DEMO_CAPABILITY)

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """The host's physical memory."""
        return memory.total_bytes()

    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        """``(free, total)`` host memory."""
        return memory.available_bytes(), memory.total_bytes()

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        """This process's peak resident memory."""
        return float(memory.peak_bytes())

    def is_pin_memory_available(self, device: str | torch.device | int | None = None) -> bool:
        """Pinning host memory for host memory is pointless."""
        return False

    def get_torch_distributed_backend_str(self) -> str:
        """Host-memory tensors use gloo."""
        return "gloo"
