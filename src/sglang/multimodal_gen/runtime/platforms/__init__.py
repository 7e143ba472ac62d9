"""Diffusion platforms: the ``Platform`` base, its ``PlatformEnum`` and ``current_platform``.

Importing this module is cheap and import-safe: plugins may subclass
:class:`Platform` at module scope before any backend is initialised.

``current_platform`` is a lazy module attribute: the first access selects
the diffusion platform (``SGLANG_DIFFUSION_PLATFORM_OVERRIDE``, else auto
discovery of the ``sglang.multimodal_gen.platforms`` entry points, else the
built-in detection order MPS, XPU, ROCm, CUDA, NPU, MUSA, CPU), once per
process and thread-safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.multimodal_gen.runtime.platforms.interface import (
    CpuArchEnum,
    DeviceCapability,
    Platform,
    PlatformEnum,
)
from sglang.runtime.selection.api import RuntimePlatformAPI

if TYPE_CHECKING:
    current_platform: Platform
    """The selected diffusion platform (resolved on first access)."""

# ``current_platform`` is deliberately not in ``__all__``: ``import *`` must not
# select a platform (and probe hardware) as a side effect.
__all__ = [
    "CpuArchEnum",
    "DeviceCapability",
    "Platform",
    "PlatformEnum",
    "get_selected_platform_dist",
    "get_selection_report",
    "initialize_current_platform",
]


_api = RuntimePlatformAPI("DIFFUSION")
__getattr__ = _api.module_getattr(__name__)
get_selected_platform_dist = _api.get_selected_platform_dist
initialize_current_platform = _api.initialize_current_platform
get_selection_report = _api.get_selection_report
