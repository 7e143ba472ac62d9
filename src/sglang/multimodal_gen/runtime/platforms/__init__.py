"""Diffusion platforms: the ``Platform`` base, its ``PlatformEnum`` and ``current_platform``.

Importing this module is cheap and import-safe: plugins may subclass
:class:`Platform` at module scope before any backend is initialised.
"""

from sglang.multimodal_gen.runtime.platforms.interface import (
    CpuArchEnum,
    DeviceCapability,
    Platform,
    PlatformEnum,
)

__all__ = ["CpuArchEnum", "DeviceCapability", "Platform", "PlatformEnum"]
