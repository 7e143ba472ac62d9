"""Contract versions: a platform class declares its version; a hook states its target's."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from sglang.multimodal_gen.runtime.platforms import Platform
from sglang.multimodal_gen.runtime.platforms import PlatformEnum as DiffusionEnum
from sglang.sdk import (
    DiffusionPlatformApiVersion,
    HookApiVersion,
    SRTPlatformApiVersion,
    VersionStatus,
)
from sglang.sdk.contract import CONTRACT_VERSIONS
from sglang.sdk.targets import HOOK_TARGETS, documented_target
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform
from sglang.srt.plugins.hook_registry import HookRegistry, HookType, plugin_hook

TARGET = "sglang.srt.managers.scheduler.Scheduler.run_batch"


class DeclaredPlatform(SRTPlatform):
    """Declares the SRT platform contract it implements, as the guide says."""

    api_version: ClassVar[Literal[1]] = 1
    _enum = PlatformEnum.OOT


class ShortDeclaration(SRTPlatform):
    """``api_version = 1`` without the annotation is checked against the base's type."""

    api_version = 1
    _enum = PlatformEnum.OOT


class UndeclaredPlatform(SRTPlatform):
    """Written from the seed's examples: version 1, reported as undeclared."""

    _enum = PlatformEnum.OOT


class DeclaredDiffusionPlatform(Platform):
    """The diffusion contract has its own version."""

    api_version: ClassVar[Literal[1]] = 1
    _enum = DiffusionEnum.OOT


def timed(original: Callable[..., object], *args: object, **kwargs: object) -> object:
    return original(*args, **kwargs)


HookRegistry.register(TARGET, timed, HookType.AROUND, api_version=1)


@plugin_hook(TARGET, type=HookType.AROUND, api_version=1)
def also_timed(original: Callable[..., object], *args: object, **kwargs: object) -> object:
    return original(*args, **kwargs)


srt_version: SRTPlatformApiVersion = DeclaredPlatform.api_version
diffusion_version: DiffusionPlatformApiVersion = DeclaredDiffusionPlatform.api_version
hook_version: HookApiVersion = 1
status: VersionStatus = CONTRACT_VERSIONS["srt-platform"].status(srt_version)
documented = documented_target(TARGET)
signature: str | None = documented.signature if documented is not None else None
targets: int = len(HOOK_TARGETS)
