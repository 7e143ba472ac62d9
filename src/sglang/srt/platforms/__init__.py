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

from sglang.runtime.selection.api import RuntimePlatformAPI

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.sdk.srt import SRTPlatform

    current_platform: SRTPlatform
    """The selected SRT platform (resolved on first access)."""

# ``current_platform`` is deliberately not in ``__all__``: ``import *`` must not
# select a platform (and probe hardware) as a side effect.
__all__ = [
    "get_selected_platform_dist",
    "get_selection_report",
    "initialize_current_platform",
]


_api = RuntimePlatformAPI("SRT")
__getattr__ = _api.module_getattr(__name__)
get_selected_platform_dist = _api.get_selected_platform_dist
initialize_current_platform = _api.initialize_current_platform
get_selection_report = _api.get_selection_report
