"""``sglang.sdk.device``: identity enums, DeviceCapability, DeviceMixin defaults."""

from __future__ import annotations

import platform as stdlib_platform
import random
from collections.abc import Callable

import numpy
import pytest
import torch

from sglang.sdk import DiffusionPlatform, DiffusionPlatformEnum, SRTPlatform
from sglang.sdk.device import (
    CpuArchEnum,
    DeviceCapability,
    DeviceMixin,
    PlatformEnum,
    detect_cpu_architecture,
)
from sglang.sdk.protocols import PlatformIdentityLike

# -- enums ------------------------------------------------------------------------

SEED_SRT_MEMBERS = ["CUDA", "ROCM", "CPU", "XPU", "MUSA", "NPU", "TPU", "MPS", "OOT", "UNSPECIFIED"]
SEED_DIFFUSION_BUILTINS = ["CPU", "CUDA", "ROCM", "XPU", "MPS", "NPU", "MUSA"]


def test_srt_platform_enum_members_are_the_seed_list() -> None:
    assert [member.name for member in PlatformEnum] == SEED_SRT_MEMBERS


def test_cpu_arch_enum_members() -> None:
    assert [member.name for member in CpuArchEnum] == ["X86", "ARM", "UNSPECIFIED"]


def test_diffusion_enum_holds_every_builtin_and_oot() -> None:
    names = {member.name for member in DiffusionPlatformEnum}
    assert set(SEED_DIFFUSION_BUILTINS) | {"OOT"} <= names


def test_the_two_platform_enums_are_distinct_types() -> None:
    srt: object = PlatformEnum
    diffusion: object = DiffusionPlatformEnum
    srt_oot: object = PlatformEnum.OOT
    assert srt is not diffusion
    assert srt_oot != DiffusionPlatformEnum.OOT
    assert not isinstance(srt_oot, DiffusionPlatformEnum)


# -- DeviceCapability ---------------------------------------------------------------


def test_device_capability_is_a_named_tuple() -> None:
    capability = DeviceCapability(major=9, minor=0)
    assert capability == (9, 0)
    assert (capability.major, capability.minor) == (9, 0)
    assert DeviceCapability._fields == ("major", "minor")
    with pytest.raises(AttributeError):
        capability.major = 8  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def test_device_capability_orders_like_a_version() -> None:
    ordered = [DeviceCapability(7, 5), DeviceCapability(8, 0), DeviceCapability(8, 9)]
    ordered.append(DeviceCapability(9, 0))
    assert sorted(reversed(ordered)) == ordered
    assert DeviceCapability(8, 9) < DeviceCapability(9, 0)
    assert DeviceCapability(9, 0) >= DeviceCapability(9, 0)
    assert max(ordered) == DeviceCapability(9, 0)
    assert DeviceCapability(10, 0) > DeviceCapability(9, 9)


@pytest.mark.parametrize(
    ("major", "minor", "text", "number"),
    [(9, 0, "9.0", 90), (8, 6, "8.6", 86), (7, 5, "7.5", 75), (10, 0, "10.0", 100)],
)
def test_device_capability_formats(major: int, minor: int, text: str, number: int) -> None:
    capability = DeviceCapability(major, minor)
    assert capability.as_version_str() == text
    assert capability.to_int() == number


# -- identity queries -------------------------------------------------------------

QUERIES: dict[str, Callable[[PlatformIdentityLike], bool]] = {
    "CUDA": lambda p: p.is_cuda(),
    "ROCM": lambda p: p.is_rocm(),
    "NPU": lambda p: p.is_npu(),
    "CPU": lambda p: p.is_cpu(),
    "XPU": lambda p: p.is_xpu(),
    "MUSA": lambda p: p.is_musa(),
    "OOT": lambda p: p.is_out_of_tree(),
}
CUDA_ALIKE = {"CUDA", "ROCM", "MUSA"}


def srt_platform_with(member: PlatformEnum) -> SRTPlatform:
    cls = type(f"Srt{member.name}", (SRTPlatform,), {"_enum": member})
    instance = cls()
    assert isinstance(instance, SRTPlatform)
    return instance


def diffusion_platform_with(member: DiffusionPlatformEnum) -> DiffusionPlatform:
    cls = type(f"Diffusion{member.name}", (DiffusionPlatform,), {"_enum": member})
    instance = cls()
    assert isinstance(instance, DiffusionPlatform)
    return instance


IDENTITY_CASES = [
    pytest.param(member.name, srt_platform_with(member), id=f"srt-{member.name}")
    for member in PlatformEnum
] + [
    pytest.param(member.name, diffusion_platform_with(member), id=f"diffusion-{member.name}")
    for member in DiffusionPlatformEnum
]


@pytest.mark.parametrize(("name", "platform"), IDENTITY_CASES)
def test_identity_queries_follow_enum(name: str, platform: PlatformIdentityLike) -> None:
    answers = {query_name: query(platform) for query_name, query in QUERIES.items()}
    assert answers == {query_name: query_name == name for query_name in QUERIES}
    assert platform.is_cuda_alike() is (name in CUDA_ALIKE)
    assert isinstance(platform, PlatformIdentityLike)


@pytest.mark.parametrize(("name", "platform"), IDENTITY_CASES)
def test_is_mps_follows_enum(name: str, platform: SRTPlatform | DiffusionPlatform) -> None:
    assert platform.is_mps() is (name == "MPS")


def test_base_classes_are_unspecified_and_in_tree() -> None:
    for platform in (DeviceMixin(), SRTPlatform(), DiffusionPlatform()):
        assert not platform.is_out_of_tree()
        assert not platform.is_cuda_alike()
        assert not platform.is_cpu()


# -- DeviceMixin defaults, checked against the seed's device-operation table ----------

SEED_DEVICE_DEFAULTS: dict[str, str] = {
    "get_device": "raise",
    "set_device": "raise",
    "get_device_name": "raise",
    "get_device_uuid": "raise",
    "get_device_capability": "raise",
    "empty_cache": "pass",
    "synchronize": "pass",
    "get_device_total_memory": "raise",
    "get_available_memory": "raise",
    "get_current_memory_usage": "raise",
    "is_pin_memory_available": "False",
    "get_torch_distributed_backend_str": "raise",
    "get_communicator_class": "None",
    "verify_quantization": "pass",
}

DEVICE_CALLS: dict[str, Callable[[DeviceMixin], object]] = {
    "get_device": lambda p: p.get_device(0),
    "set_device": lambda p: p.set_device(torch.device("cpu")),
    "get_device_name": lambda p: p.get_device_name(),
    "get_device_uuid": lambda p: p.get_device_uuid(0),
    "get_device_capability": lambda p: p.get_device_capability(),
    "empty_cache": lambda p: p.empty_cache(),
    "synchronize": lambda p: p.synchronize(),
    "get_device_total_memory": lambda p: p.get_device_total_memory(),
    "get_available_memory": lambda p: p.get_available_memory(0),
    "get_current_memory_usage": lambda p: p.get_current_memory_usage(),
    "is_pin_memory_available": lambda p: p.is_pin_memory_available(),
    "get_torch_distributed_backend_str": lambda p: p.get_torch_distributed_backend_str(),
    "get_communicator_class": lambda p: p.get_communicator_class(),
    "verify_quantization": lambda p: p.verify_quantization("fp8"),
    "inference_mode": lambda p: p.inference_mode(),
    "seed_everything": lambda p: p.seed_everything(None),
    "get_cpu_architecture": lambda p: p.get_cpu_architecture(),
}


def test_every_device_operation_has_a_call() -> None:
    from sglang.sdk import DEVICE_OPERATIONS

    assert set(DEVICE_CALLS) == set(DEVICE_OPERATIONS)


class VendorDevice(DeviceMixin):
    _enum = PlatformEnum.OOT


@pytest.mark.parametrize(("operation", "default"), sorted(SEED_DEVICE_DEFAULTS.items()))
def test_device_mixin_defaults(operation: str, default: str) -> None:
    call = DEVICE_CALLS[operation]
    if default == "raise":
        with pytest.raises(NotImplementedError) as caught:
            call(VendorDevice())
        message = str(caught.value)
        assert "VendorDevice" in message
        assert f"{operation}()" in message
        assert "override" in message
    elif default == "pass":
        assert call(VendorDevice()) is None
    elif default == "False":
        assert call(VendorDevice()) is False
    else:
        assert default == "None"
        assert call(VendorDevice()) is None


@pytest.mark.parametrize("device", [torch.device("cpu"), "cuda", "cuda:1", 0, None])
def test_default_is_pin_memory_available_for_a_device(
    device: str | torch.device | int | None,
) -> None:
    assert VendorDevice().is_pin_memory_available(device) is False


def test_device_mixin_class_attributes() -> None:
    assert DeviceMixin._enum is PlatformEnum.UNSPECIFIED
    assert isinstance(DeviceMixin.device_name, str)
    assert isinstance(DeviceMixin.device_type, str)


def test_inference_mode_is_torch_inference_mode() -> None:
    mode = VendorDevice().inference_mode()
    assert isinstance(mode, torch.inference_mode)
    assert not torch.is_inference_mode_enabled()
    with mode:
        assert torch.is_inference_mode_enabled()
        assert torch.ones(1).is_inference()
    assert not torch.is_inference_mode_enabled()


def draw() -> tuple[float, float, list[float]]:
    return (random.random(), float(numpy.random.rand()), torch.rand(3).tolist())


def test_seed_everything_seeds_random_numpy_and_torch() -> None:
    platform = VendorDevice()
    platform.seed_everything(1234)
    first = draw()
    platform.seed_everything(1234)
    assert draw() == first
    platform.seed_everything(4321)
    other = draw()
    assert all(a != b for a, b in zip(other, first, strict=True))


def test_seed_everything_none_leaves_the_generators_alone() -> None:
    platform = VendorDevice()
    platform.seed_everything(7)
    expected = draw()
    platform.seed_everything(7)
    platform.seed_everything(None)
    assert draw() == expected


# -- CPU architecture ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "arch"),
    [
        ("x86_64", CpuArchEnum.X86),
        ("AMD64", CpuArchEnum.X86),
        ("amd64", CpuArchEnum.X86),
        ("i386", CpuArchEnum.X86),
        ("i686", CpuArchEnum.X86),
        ("arm64", CpuArchEnum.ARM),
        ("aarch64", CpuArchEnum.ARM),
        ("armv7l", CpuArchEnum.ARM),
        ("riscv64", CpuArchEnum.UNSPECIFIED),
        ("ppc64le", CpuArchEnum.UNSPECIFIED),
        ("s390x", CpuArchEnum.UNSPECIFIED),
        ("", CpuArchEnum.UNSPECIFIED),
    ],
)
def test_cpu_architecture_mapping(machine: str, arch: CpuArchEnum) -> None:
    assert detect_cpu_architecture(machine) is arch


def test_get_cpu_architecture_probes_this_host() -> None:
    machine = stdlib_platform.machine()
    assert detect_cpu_architecture() is detect_cpu_architecture(machine)
    assert VendorDevice().get_cpu_architecture() is detect_cpu_architecture(machine)
    assert DiffusionPlatform().get_cpu_architecture() is detect_cpu_architecture(machine)
    if machine.lower() in {"x86_64", "amd64"}:
        assert VendorDevice().get_cpu_architecture() is CpuArchEnum.X86
    elif machine.lower() in {"aarch64", "arm64"}:
        assert VendorDevice().get_cpu_architecture() is CpuArchEnum.ARM
