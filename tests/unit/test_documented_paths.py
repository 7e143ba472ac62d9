"""The documented import paths expose the sdk's objects themselves."""

from __future__ import annotations

import importlib

import pytest

import sglang.sdk.device as sdk_device
import sglang.sdk.diffusion as sdk_diffusion
import sglang.sdk.serve as sdk_serve
import sglang.sdk.srt as sdk_srt

# documented module -> {exported name: the sdk object it must be}
DOCUMENTED: dict[str, dict[str, object]] = {
    "sglang.srt.platforms.device_mixin": {
        "DeviceMixin": sdk_device.DeviceMixin,
        "PlatformEnum": sdk_device.PlatformEnum,
        "CpuArchEnum": sdk_device.CpuArchEnum,
        "DeviceCapability": sdk_device.DeviceCapability,
    },
    "sglang.srt.platforms.interface": {
        "SRTPlatform": sdk_srt.SRTPlatform,
        "DeviceMixin": sdk_device.DeviceMixin,
        "PlatformEnum": sdk_device.PlatformEnum,
        "CpuArchEnum": sdk_device.CpuArchEnum,
        "DeviceCapability": sdk_device.DeviceCapability,
    },
    "sglang.multimodal_gen.runtime.platforms": {
        "Platform": sdk_diffusion.Platform,
        "PlatformEnum": sdk_diffusion.PlatformEnum,
        "CpuArchEnum": sdk_device.CpuArchEnum,
        "DeviceCapability": sdk_device.DeviceCapability,
    },
    "sglang.multimodal_gen.runtime.platforms.interface": {
        "Platform": sdk_diffusion.Platform,
        "PlatformEnum": sdk_diffusion.PlatformEnum,
        "CpuArchEnum": sdk_device.CpuArchEnum,
        "DeviceCapability": sdk_device.DeviceCapability,
    },
    "sglang.cli.serve_backends": {
        "ServeBackend": sdk_serve.ServeBackend,
        "ServeBackendDetection": sdk_serve.ServeBackendDetection,
        "ServeRequest": sdk_serve.ServeRequest,
    },
}

CASES = [
    pytest.param(module, name, expected, id=f"{module}:{name}")
    for module, names in DOCUMENTED.items()
    for name, expected in names.items()
]


@pytest.mark.parametrize(("module", "name", "expected"), CASES)
def test_documented_name_is_the_sdk_object(module: str, name: str, expected: object) -> None:
    assert getattr(importlib.import_module(module), name) is expected


@pytest.mark.parametrize("module", sorted(DOCUMENTED))
def test_documented_module_exports_what_it_lists(module: str) -> None:
    exported = importlib.import_module(module)
    assert set(DOCUMENTED[module]) <= set(exported.__all__)
    for name in exported.__all__:
        assert hasattr(exported, name), f"{module}.__all__ names missing {name}"


def test_the_two_platform_enums_are_distinct_types() -> None:
    srt = importlib.import_module("sglang.srt.platforms.interface")
    diffusion = importlib.import_module("sglang.multimodal_gen.runtime.platforms")
    assert srt.PlatformEnum is not diffusion.PlatformEnum
    assert srt.PlatformEnum.OOT is not diffusion.PlatformEnum.OOT
    assert not issubclass(diffusion.Platform, srt.SRTPlatform)
    assert not issubclass(srt.SRTPlatform, diffusion.Platform)


def test_sdk_top_level_aliases() -> None:
    sdk = importlib.import_module("sglang.sdk")
    assert sdk.DiffusionPlatform is sdk_diffusion.Platform
    assert sdk.DiffusionPlatformEnum is sdk_diffusion.PlatformEnum
    assert sdk.PlatformEnum is sdk_device.PlatformEnum
    for name in sdk.__all__:
        assert hasattr(sdk, name), name
