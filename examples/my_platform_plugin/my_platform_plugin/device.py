"""Step 4 of the quick start: ``MyDeviceMixin``, the device's identity and operations."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from sglang.srt.platforms.device_mixin import DeviceCapability, DeviceMixin, PlatformEnum

if TYPE_CHECKING:
    import torch

__all__ = ["MyDeviceMixin"]


class MyDeviceMixin(DeviceMixin):
    """``my_device``: identity, memory queries and the distributed backend.

    A real device names its own torch device type; this stand-in allocates
    in host memory, so its torch device type is ``"cpu"``.
    """

    _enum = PlatformEnum.OOT
    device_name = "my_device"
    device_type = "cpu"  # torch device type

    def get_device(self, local_rank: int) -> torch.device:
        """Every rank uses host memory."""
        import torch

        return torch.device(self.device_type)

    def set_device(self, device: torch.device) -> None:
        """Nothing to select: there is one host memory."""

    def get_device_name(self, device_id: int = 0) -> str:
        """A human-readable name."""
        return f"my_device {device_id}"

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """The host's physical memory, in bytes."""
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")

    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        """``(free, total)`` host memory, in bytes: a default serve sizes its KV cache from it."""
        page = os.sysconf("SC_PAGE_SIZE")
        return page * os.sysconf("SC_AVPHYS_PAGES"), self.get_device_total_memory(device_id)

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        """This process's peak resident memory, in bytes."""
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return float(peak if sys.platform == "darwin" else peak * 1024)

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """``my_device`` has no compute-capability versioning."""
        return None

    def get_torch_distributed_backend_str(self) -> str:
        """Host-memory tensors use gloo."""
        return "gloo"
