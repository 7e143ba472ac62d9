"""The two runtimes as data: what SRT and diffusion differ in.

The engine (selection, plugin loading, the hook registries) is written once
and fed one :class:`RuntimeSpec` per runtime. Everything that differs
between SRT and diffusion is a field here, not a branch in the engine.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sglang.sdk import constants
from sglang.sdk.device import PlatformEnum as SRTPlatformEnum
from sglang.sdk.diffusion import Platform as DiffusionPlatformBase
from sglang.sdk.diffusion import PlatformEnum as DiffusionPlatformEnum
from sglang.sdk.srt import SRTPlatform

__all__ = ["DIFFUSION", "SRT", "RuntimeSpec"]


@dataclass(frozen=True)
class RuntimeSpec:
    """Everything the shared engine needs to know about one runtime.

    Attributes:
        name: Short runtime name for messages: ``"srt"`` or ``"diffusion"``.
        title: Human-readable runtime name, for messages and docs.
        platforms_group: Entry-point group of platform plugins.
        plugins_group: Entry-point group of general plugins.
        selector_env: Environment variable that selects a platform explicitly.
        plugins_env: Environment variable holding the general-plugin allowlist.
        platform_base: The class every platform of this runtime subclasses.
        oot_enum: The ``PlatformEnum.OOT`` member plugins must declare.
    """

    name: str
    title: str
    platforms_group: str
    plugins_group: str
    selector_env: str
    plugins_env: str
    platform_base: type[object]
    oot_enum: enum.Enum


SRT = RuntimeSpec(
    name="srt",
    title="SRT",
    platforms_group=constants.SRT_PLATFORMS_GROUP,
    plugins_group=constants.SRT_PLUGINS_GROUP,
    selector_env=constants.ENV_PLATFORM,
    plugins_env=constants.ENV_PLUGINS,
    platform_base=SRTPlatform,
    oot_enum=SRTPlatformEnum.OOT,
)
"""The SRT (LLM serving) runtime."""

DIFFUSION = RuntimeSpec(
    name="diffusion",
    title="SGLang Diffusion",
    platforms_group=constants.DIFFUSION_PLATFORMS_GROUP,
    plugins_group=constants.DIFFUSION_PLUGINS_GROUP,
    selector_env=constants.ENV_DIFFUSION_PLATFORM_OVERRIDE,
    plugins_env=constants.ENV_PLUGINS,
    platform_base=DiffusionPlatformBase,
    oot_enum=DiffusionPlatformEnum.OOT,
)
"""The diffusion (``sglang.multimodal_gen``) runtime."""
