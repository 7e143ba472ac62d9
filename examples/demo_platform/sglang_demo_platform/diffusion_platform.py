"""``DemoDiffusionPlatform``: the demo device for SGLang Diffusion."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from sglang.multimodal_gen.runtime.platforms import DeviceCapability, Platform, PlatformEnum
from sglang_demo_platform import memory

if TYPE_CHECKING:
    import torch

__all__ = ["DemoDiffusionPlatform"]


class DemoDiffusionPlatform(Platform):
    """Diffusion on the demo device (host memory, ``forward_demo()`` custom ops)."""

    api_version: ClassVar[Literal[1]] = 1
    """The diffusion platform contract version this class implements."""

    _enum = PlatformEnum.OOT
    device_name = "demo"
    device_type = "cpu"
    dispatch_key = "CPU"  # torch.library registrations target host memory

    _init_backend_calls: ClassVar[int] = 0
    """How often :meth:`init_backend` ran in this process (for the demo and tests)."""

    def get_dispatch_key_name(self) -> str:
        """Custom ops dispatch to ``forward_demo()`` where one exists."""
        return "demo"

    def init_backend(self) -> None:
        """One-time backend setup: count the call, register the demo custom ops."""
        type(self)._init_backend_calls += 1
        from sglang_demo_platform.diffusion_ops import install

        install()

    def get_device(self, local_rank: int) -> torch.device:
        """Every rank uses host memory."""
        import torch

        return torch.device("cpu")

    def set_device(self, device: torch.device) -> None:
        """Nothing to select: there is one host memory."""

    def get_local_torch_device(self) -> torch.device:
        """This worker's device: host memory."""
        return self.get_device(0)

    def get_device_name(self, device_id: int = 0) -> str:
        """Return ``"Demo device N"``."""
        return f"Demo device {device_id}"

    def get_device_uuid(self, device_id: int = 0) -> str:
        """Return a stable identifier per device index."""
        return f"demo-{device_id:04d}"

    def get_device_total_memory(self, device_id: int = 0) -> int:
        """The host's physical memory."""
        return memory.total_bytes()

    def get_available_gpu_memory(self, device_id: int = 0) -> int:
        """Host memory available for new allocations."""
        return memory.available_bytes()

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        """The demo device reports capability 1.0."""
        return DeviceCapability(*memory.DEMO_CAPABILITY)

    def get_attn_backend_cls_str(self, selected_backend: str | None, head_size: int) -> str:
        """The demo device runs torch SDPA unless a backend is selected."""
        return selected_backend or "torch_sdpa"
