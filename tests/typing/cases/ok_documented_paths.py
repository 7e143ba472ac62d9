"""Every documented import path, with the types a vendor reads from each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from typing_extensions import assert_never

import sglang
import sglang.cli.serve_backends as serve_backends
import sglang.multimodal_gen.runtime.platforms as diffusion_platforms
import sglang.multimodal_gen.runtime.platforms.interface as diffusion_interface
import sglang.sdk as sdk
import sglang.srt.platforms.device_mixin as device_mixin
import sglang.srt.platforms.interface as srt_interface
from sglang.sdk import (
    ALL_ENTRY_POINT_GROUPS,
    DEVICE_OPERATIONS,
    DIFFUSION_OPERATIONS,
    DIFFUSION_PLATFORMS_GROUP,
    DIFFUSION_PLUGINS_GROUP,
    ENV_DIFFUSION_PLATFORM_OVERRIDE,
    ENV_PLATFORM,
    ENV_PLUGINS,
    ENV_USE_CPU_ENGINE,
    SERVE_BACKEND_API_VERSION,
    SRT_OPERATIONS,
    SRT_PLATFORMS_GROUP,
    SUPPORTED_SERVE_BACKEND_API_VERSIONS,
    Operation,
    OperationStatus,
    ServeBackendApiVersion,
)

version: str = sglang.__version__
srt_group: Literal["sglang.srt.platforms"] = SRT_PLATFORMS_GROUP
diffusion_group: Literal["sglang.multimodal_gen.platforms"] = DIFFUSION_PLATFORMS_GROUP
diffusion_plugins: Literal["sglang.multimodal_gen.plugins"] = DIFFUSION_PLUGINS_GROUP
env_names: tuple[str, ...] = (
    ENV_PLATFORM,
    ENV_DIFFUSION_PLATFORM_OVERRIDE,
    ENV_PLUGINS,
    ENV_USE_CPU_ENGINE,
)
groups: tuple[str, ...] = ALL_ENTRY_POINT_GROUPS
api_version: ServeBackendApiVersion = 1
current_api: int = SERVE_BACKEND_API_VERSION
supported: frozenset[int] = SUPPORTED_SERVE_BACKEND_API_VERSIONS

tables: list[Mapping[str, Operation]] = [DEVICE_OPERATIONS, SRT_OPERATIONS, DIFFUSION_OPERATIONS]
active: list[str] = [
    name for table in tables for name, op in table.items() if op.status is OperationStatus.ACTIVE
]

srt_oot: device_mixin.PlatformEnum = srt_interface.PlatformEnum.OOT
diffusion_oot: diffusion_platforms.PlatformEnum = diffusion_interface.PlatformEnum.OOT
srt_base: type[sdk.SRTPlatform] = srt_interface.SRTPlatform
mixin: type[sdk.DeviceMixin] = device_mixin.DeviceMixin
diffusion_base: type[sdk.DiffusionPlatform] = diffusion_platforms.Platform
arch: sdk.CpuArchEnum = device_mixin.CpuArchEnum.X86
capability: sdk.DeviceCapability = srt_interface.DeviceCapability(9, 0)
backend_cls: type[sdk.ServeBackend] = serve_backends.ServeBackend
request_cls: type[sdk.ServeRequest] = serve_backends.ServeRequest


def describe(verdict: serve_backends.ServeBackendDetection) -> str:
    if verdict is sdk.ServeBackendDetection.MATCH:
        return "match"
    if verdict is sdk.ServeBackendDetection.NO_MATCH:
        return "no match"
    if verdict is sdk.ServeBackendDetection.UNKNOWN:
        return "unknown"
    assert_never(verdict)


def hook_kind(kind: sdk.HookType) -> str:
    if kind is sdk.HookType.BEFORE or kind is sdk.HookType.AFTER:
        return "observe"
    if kind is sdk.HookType.AROUND or kind is sdk.HookType.REPLACE:
        return "control"
    assert_never(kind)
