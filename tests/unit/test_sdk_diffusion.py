"""``sglang.sdk.diffusion.Platform``: defaults of the diffusion platform contract."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from sglang.sdk.diffusion import DIFFUSION_OPERATIONS, Platform, PlatformEnum


class VendorPlatform(Platform):
    _enum = PlatformEnum.OOT


DIFFUSION_CALLS: dict[str, Callable[[Platform], object]] = {
    "init_backend": lambda p: p.init_backend(),
    "apply_server_args_defaults": lambda p: p.apply_server_args_defaults(object()),
    "get_device": lambda p: p.get_device(0),
    "set_device": lambda p: p.set_device(torch.device("cpu")),
    "get_local_torch_device": lambda p: p.get_local_torch_device(),
    "get_device_name": lambda p: p.get_device_name(),
    "get_device_uuid": lambda p: p.get_device_uuid(),
    "get_device_total_memory": lambda p: p.get_device_total_memory(),
    "get_available_gpu_memory": lambda p: p.get_available_gpu_memory(),
    "get_device_capability": lambda p: p.get_device_capability(),
    "get_torch_distributed_backend_str": lambda p: p.get_torch_distributed_backend_str(),
    "supports_distributed_device_id": lambda p: p.supports_distributed_device_id(),
    "get_all_to_all_communicator_cls": lambda p: p.get_all_to_all_communicator_cls(),
    "get_cpu_architecture": lambda p: p.get_cpu_architecture(),
    "dispatch_key": lambda p: p.dispatch_key,
    "get_torch_library_dispatch_key": lambda p: p.get_torch_library_dispatch_key(),
    "get_dispatch_key_name": lambda p: p.get_dispatch_key_name(),
    "get_attn_backend_cls_str": lambda p: p.get_attn_backend_cls_str(None, 64),
    "verify_model_arch": lambda p: p.verify_model_arch("FluxPipeline"),
    "optimize_vae": lambda p: p.optimize_vae(object()),
    "get_compile_backend": lambda p: p.get_compile_backend(),
    "get_compile_options": lambda p: p.get_compile_options(),
    "inference_mode": lambda p: p.inference_mode(),
    "seed_everything": lambda p: p.seed_everything(None),
    "enable_dit_layerwise_offload_by_default": lambda p: (
        p.enable_dit_layerwise_offload_by_default()
    ),
    "get_device_communicator_cls": lambda p: p.get_device_communicator_cls(),
}

RAISING = [
    "get_device",
    "set_device",
    "get_local_torch_device",
    "get_device_name",
    "get_device_uuid",
    "get_device_total_memory",
    "get_available_gpu_memory",
    "get_attn_backend_cls_str",
]

VALUE_DEFAULTS: list[tuple[str, object]] = [
    ("init_backend", None),
    ("apply_server_args_defaults", None),
    ("get_device_capability", None),
    ("get_torch_distributed_backend_str", "gloo"),
    ("supports_distributed_device_id", False),
    ("get_all_to_all_communicator_cls", None),
    ("get_device_communicator_cls", None),
    ("verify_model_arch", None),
    ("get_compile_backend", "inductor"),
    ("get_compile_options", {}),
    ("enable_dit_layerwise_offload_by_default", False),
    ("seed_everything", None),
    ("dispatch_key", "CPU"),
]


def test_every_call_is_a_diffusion_operation() -> None:
    assert set(DIFFUSION_CALLS) == set(DIFFUSION_OPERATIONS)


@pytest.mark.parametrize("operation", RAISING)
def test_required_operations_raise_naming_class_and_method(operation: str) -> None:
    with pytest.raises(NotImplementedError) as caught:
        DIFFUSION_CALLS[operation](VendorPlatform())
    assert "VendorPlatform" in str(caught.value)
    assert f"{operation}()" in str(caught.value)


@pytest.mark.parametrize(("operation", "expected"), VALUE_DEFAULTS)
def test_value_defaults(operation: str, expected: object) -> None:
    assert DIFFUSION_CALLS[operation](VendorPlatform()) == expected


def test_optimize_vae_returns_the_vae_unchanged() -> None:
    vae = object()
    assert VendorPlatform().optimize_vae(vae) is vae


def test_inference_mode_is_torch_inference_mode() -> None:
    mode = VendorPlatform().inference_mode()
    assert isinstance(mode, torch.inference_mode)
    with mode:
        assert torch.is_inference_mode_enabled()


def test_torch_library_dispatch_key_reads_dispatch_key() -> None:
    class PrivateUse(VendorPlatform):
        dispatch_key = "PrivateUse1"

    platform = PrivateUse()
    assert platform.get_torch_library_dispatch_key() == "PrivateUse1"
    platform.dispatch_key = "AutogradPrivateUse1"
    assert platform.get_torch_library_dispatch_key() == "AutogradPrivateUse1"
    assert Platform().get_torch_library_dispatch_key() == Platform.dispatch_key == "CPU"


def test_dispatch_key_name_is_separate_from_dispatch_key() -> None:
    class MyDiffusionPlatform(VendorPlatform):
        dispatch_key = "PrivateUse1"

        def get_dispatch_key_name(self) -> str:
            return "my_device"

    platform = MyDiffusionPlatform()
    assert platform.get_dispatch_key_name() == "my_device"
    assert platform.get_torch_library_dispatch_key() == "PrivateUse1"


@pytest.mark.parametrize(
    ("member", "key"),
    [
        (PlatformEnum.CUDA, "cuda"),
        (PlatformEnum.CPU, "cpu"),
        (PlatformEnum.XPU, "xpu"),
        (PlatformEnum.MPS, "mps"),
        (PlatformEnum.NPU, "npu"),
        (PlatformEnum.MUSA, "musa"),
        (PlatformEnum.OOT, "oot"),
    ],
)
def test_dispatch_key_name_by_identity(member: PlatformEnum, key: str) -> None:
    cls = type("ByIdentity", (Platform,), {"_enum": member})
    platform = cls()
    assert isinstance(platform, Platform)
    assert platform.get_dispatch_key_name() == key


@pytest.mark.parametrize("member", list(PlatformEnum))
def test_every_identity_has_a_dispatch_key_name(member: PlatformEnum) -> None:
    cls = type("ByIdentity", (Platform,), {"_enum": member})
    platform = cls()
    assert isinstance(platform, Platform)
    name = platform.get_dispatch_key_name()
    assert name
    assert name.isidentifier()


class LegacyCommunicator:
    pass


class NewCommunicator:
    pass


def test_all_to_all_falls_back_to_the_compatibility_communicator() -> None:
    class Legacy(VendorPlatform):
        def get_device_communicator_cls(self) -> type[object] | None:
            return LegacyCommunicator

    assert Legacy().get_all_to_all_communicator_cls() is LegacyCommunicator


def test_all_to_all_override_wins_over_the_fallback() -> None:
    class Modern(VendorPlatform):
        def get_device_communicator_cls(self) -> type[object] | None:
            return LegacyCommunicator

        def get_all_to_all_communicator_cls(self) -> type[object] | None:
            return NewCommunicator

    assert Modern().get_all_to_all_communicator_cls() is NewCommunicator


def test_platform_is_constructible_without_arguments() -> None:
    platform = VendorPlatform()
    assert platform.is_out_of_tree()
    assert Platform().is_out_of_tree() is False
