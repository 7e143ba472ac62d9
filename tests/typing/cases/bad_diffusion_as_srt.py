"""A diffusion platform is not an SRT platform, and the enums do not mix."""

from __future__ import annotations

from sglang.multimodal_gen.runtime.platforms import Platform
from sglang.multimodal_gen.runtime.platforms import PlatformEnum as DiffusionPlatformEnum
from sglang.sdk import SRTPlatformLike
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class MyDiffusionPlatform(Platform):
    _enum = DiffusionPlatformEnum.OOT


class UsesSrtEnum(Platform):
    _enum = PlatformEnum.OOT  # expect-error


class UsesDiffusionEnum(SRTPlatform):
    _enum = DiffusionPlatformEnum.OOT  # expect-error


platform: SRTPlatformLike = MyDiffusionPlatform()  # expect-error
