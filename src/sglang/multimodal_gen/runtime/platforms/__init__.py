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

if TYPE_CHECKING:
    from sglang.runtime.selection_report import SelectionReport

    current_platform: Platform
    """The selected diffusion platform (resolved on first access)."""

__all__ = [
    "CpuArchEnum",
    "DeviceCapability",
    "Platform",
    "PlatformEnum",
    "current_platform",
    "get_selected_platform_dist",
    "get_selection_report",
    "initialize_current_platform",
]


def __getattr__(name: str) -> object:
    if name == "current_platform":
        from sglang.runtime.runtimes import DIFFUSION
        from sglang.runtime.selection import resolve_platform

        return resolve_platform(DIFFUSION)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_selected_platform_dist() -> str | None:
    """Return the distribution that provided the diffusion platform (``None``: built-in).

    Selects the platform first if that has not happened yet.
    """
    from sglang.runtime.runtimes import DIFFUSION
    from sglang.runtime.selection import selected_platform_dist

    return selected_platform_dist(DIFFUSION)


def initialize_current_platform() -> None:
    """Run the diffusion platform's ``init_backend()`` at most once in this process."""
    from sglang.runtime.runtimes import DIFFUSION
    from sglang.runtime.selection import initialize_current_platform as initialize

    initialize(DIFFUSION)


def get_selection_report() -> SelectionReport:
    """Return what diffusion platform selection did and why (selecting it if needed).

    A selection failure is not raised here; it is in the report's ``error``.
    """
    from sglang.runtime.runtimes import DIFFUSION
    from sglang.runtime.selection import selection_report

    report = selection_report(DIFFUSION)
    assert report is not None
    return report
