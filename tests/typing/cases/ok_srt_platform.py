"""A complete SRT platform plugin, as the plugin guide lays it out."""

from __future__ import annotations

import torch

from sglang.sdk import (
    DeviceLike,
    PlatformActivator,
    PlatformIdentityLike,
    QuantizationConfig,
    SRTPlatformLike,
)
from sglang.srt.platforms.device_mixin import (
    CpuArchEnum,
    DeviceCapability,
    DeviceMixin,
    PlatformEnum,
)
from sglang.srt.platforms.interface import SRTPlatform


def _my_device_is_available() -> bool:
    return True


def activate() -> str | None:
    """Return the platform class qualname when the hardware is available."""
    if _my_device_is_available():
        return "my_platform_plugin.platform.MySRTPlatform"
    return None


class MyDeviceMixin(DeviceMixin):
    _enum = PlatformEnum.OOT
    device_name = "my_device"
    device_type = "my_device"

    def get_device(self, local_rank: int) -> torch.device:
        return torch.device(self.device_type, local_rank)

    def set_device(self, device: torch.device) -> None:
        del device

    def get_device_name(self, device_id: int = 0) -> str:
        return f"My Device #{device_id}"

    def get_device_total_memory(self, device_id: int = 0) -> int:
        return 64 << 30

    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        return (32 << 30, 64 << 30)

    def get_current_memory_usage(self, device: torch.device | None = None) -> float:
        return 0.0

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        return DeviceCapability(major=1, minor=0)

    def get_torch_distributed_backend_str(self) -> str:
        return "gloo"

    def is_pin_memory_available(self, device: str | torch.device | int | None = None) -> bool:
        return True

    def get_cpu_architecture(self) -> CpuArchEnum:
        return CpuArchEnum.ARM


class MySRTPlatform(SRTPlatform, MyDeviceMixin):
    def get_default_attention_backend(self) -> str:
        return "torch_native"

    def support_cuda_graph(self) -> bool:
        return False

    def supports_fp8(self) -> bool:
        return True

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        return None

    def get_compile_backend(self, mode: str | None = None) -> str:
        return "my_backend" if mode == "max-autotune" else "inductor"

    def get_dispatch_key_name(self) -> str:
        return "my_device"

    def apply_server_args_defaults(self, server_args: object) -> None:
        del server_args

    def init_backend(self) -> None:
        pass


activator: PlatformActivator = activate
platform: SRTPlatformLike = MySRTPlatform()
device: DeviceLike = MySRTPlatform()
identity: PlatformIdentityLike = MySRTPlatform()
capability = platform.get_device_capability()
version: str = capability.as_version_str() if capability is not None else "n/a"
as_int: int = DeviceCapability(9, 0).to_int()
newer: bool = DeviceCapability(9, 0) > DeviceCapability(8, 9)
free, total = platform.get_available_memory()
pinned: bool = platform.is_pin_memory_available("cuda") or platform.is_pin_memory_available(1)
out_of_tree: bool = platform.is_out_of_tree() and not platform.is_cuda_alike()
with platform.inference_mode():
    platform.seed_everything(0)
