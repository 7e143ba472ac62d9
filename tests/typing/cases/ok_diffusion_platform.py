"""A diffusion platform plugin, as the plugin guide lays it out."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping

import torch

from sglang.multimodal_gen.runtime.platforms import CpuArchEnum, Platform, PlatformEnum
from sglang.multimodal_gen.runtime.platforms.interface import DeviceCapability
from sglang.multimodal_gen.runtime.platforms.interface import Platform as InterfacePlatform
from sglang.sdk import DiffusionPlatformLike, PlatformActivator


def activate_diffusion() -> str | None:
    """Return the diffusion platform qualname when the runtime is installed."""
    if importlib.util.find_spec("my_device_runtime") is None:
        return None
    return "my_platform_plugin.diffusion_platform.MyDiffusionPlatform"


class MyCommunicator:
    """A stand-in all-to-all communicator."""


class MyDiffusionPlatform(Platform):
    _enum = PlatformEnum.OOT
    device_name = "my_device"
    device_type = "my_device"
    dispatch_key = "PrivateUse1"

    def get_dispatch_key_name(self) -> str:
        return "my_device"

    def init_backend(self) -> None:
        pass

    def get_device(self, local_rank: int) -> torch.device:
        return torch.device(self.device_type, local_rank)

    def get_local_torch_device(self) -> torch.device:
        return self.get_device(0)

    def get_device_name(self, device_id: int = 0) -> str:
        return "My Device"

    def get_device_total_memory(self, device_id: int = 0) -> int:
        return 64 << 30

    def get_available_gpu_memory(self, device_id: int = 0) -> int:
        return 32 << 30

    def get_device_capability(self, device_id: int = 0) -> DeviceCapability | None:
        return DeviceCapability(2, 1)

    def get_all_to_all_communicator_cls(self) -> type[object] | None:
        return MyCommunicator

    def get_attn_backend_cls_str(self, selected_backend: str | None, head_size: int) -> str:
        return "my_platform_plugin.attention.MyAttentionBackend"

    def get_compile_options(self) -> Mapping[str, object]:
        return {"mode": "reduce-overhead"}

    def get_cpu_architecture(self) -> CpuArchEnum:
        return CpuArchEnum.X86


activator: PlatformActivator = activate_diffusion
platform: DiffusionPlatformLike = MyDiffusionPlatform()
same_class: bool = Platform is InterfacePlatform
key: str = platform.get_torch_library_dispatch_key()
name: str = platform.get_dispatch_key_name()
oot: bool = platform.is_out_of_tree()
