"""SRT platforms: the platform base types and the ``current_platform`` singleton.

``current_platform`` is a lazy module attribute: the first access selects
the SRT platform (``SGLANG_PLATFORM``, else auto discovery of the
``sglang.srt.platforms`` entry points, else the built-in fallbacks), once
per process and thread-safe, and later accesses return the same object::

    from sglang.srt.platforms import current_platform

    current_platform.get_device_total_memory()

Importing this package is cheap: it imports neither torch nor any plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.runtime.selection_report import SelectionReport
    from sglang.sdk.srt import SRTPlatform

    current_platform: SRTPlatform
    """The selected SRT platform (resolved on first access)."""

__all__ = [
    "current_platform",
    "get_selected_platform_dist",
    "get_selection_report",
    "initialize_current_platform",
]


def __getattr__(name: str) -> object:
    if name == "current_platform":
        from sglang.runtime.runtimes import SRT
        from sglang.runtime.selection import resolve_platform

        return resolve_platform(SRT)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_selected_platform_dist() -> str | None:
    """Return the distribution that provided the SRT platform (``None``: built-in).

    Selects the platform first if that has not happened yet.
    """
    from sglang.runtime.runtimes import SRT
    from sglang.runtime.selection import selected_platform_dist

    return selected_platform_dist(SRT)


def initialize_current_platform() -> None:
    """Run the SRT platform's ``init_backend()`` at most once in this process."""
    from sglang.runtime.runtimes import SRT
    from sglang.runtime.selection import initialize_current_platform as initialize

    initialize(SRT)


def get_selection_report() -> SelectionReport:
    """Return what SRT platform selection did and why (selecting it if needed).

    A selection failure is not raised here; it is in the report's ``error``.
    """
    from sglang.runtime.runtimes import SRT
    from sglang.runtime.selection import selection_report

    report = selection_report(SRT)
    assert report is not None
    return report
