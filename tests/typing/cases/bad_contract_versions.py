"""Only the contract versions this release knows type-check: 2 does not exist yet."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from sglang.multimodal_gen.runtime.platforms import Platform
from sglang.multimodal_gen.runtime.platforms import PlatformEnum as DiffusionEnum
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform
from sglang.srt.plugins.hook_registry import HookRegistry, HookType, plugin_hook

TARGET = "sglang.srt.managers.scheduler.Scheduler.run_batch"


class FuturePlatform(SRTPlatform):
    api_version: ClassVar[Literal[2]] = 2  # expect-error
    _enum = PlatformEnum.OOT


class ShortFuturePlatform(SRTPlatform):
    api_version = 2  # expect-error
    _enum = PlatformEnum.OOT


class FutureDiffusionPlatform(Platform):
    api_version: ClassVar[Literal[2]] = 2  # expect-error
    _enum = DiffusionEnum.OOT


def timed(original: Callable[..., object], *args: object, **kwargs: object) -> object:
    return original(*args, **kwargs)


HookRegistry.register(TARGET, timed, HookType.AROUND, api_version=2)  # expect-error


@plugin_hook(TARGET, type=HookType.AROUND, api_version=2)  # expect-error
def also_timed(original: Callable[..., object], *args: object, **kwargs: object) -> object:
    return original(*args, **kwargs)
