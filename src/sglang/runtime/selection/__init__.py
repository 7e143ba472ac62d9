"""Platform selection for both runtimes: once per process, one algorithm.

The modules, in the order they build on each other (each imports only
those before it):

* :mod:`~sglang.runtime.selection.outcome`: modes, callback statuses and
  :class:`Selected`, the vocabulary the others share;
* :mod:`~sglang.runtime.selection.errors`: the errors and their messages;
* :mod:`~sglang.runtime.selection.record`: :class:`ReportBuilder`, the log
  selection keeps while it runs;
* :mod:`~sglang.runtime.selection.report`: :class:`SelectionReport`, the
  frozen explanation built from the log;
* :mod:`~sglang.runtime.selection.classes`: platform class qualnames to
  checked instances;
* :mod:`~sglang.runtime.selection.engine`: :func:`select`, the algorithm,
  and :class:`Progress`, what a running selection is doing;
* :mod:`~sglang.runtime.selection.current`: the per-runtime state (gates,
  log and progress) behind ``current_platform``;
* :mod:`~sglang.runtime.selection.api`: :class:`RuntimePlatformAPI`, what
  the documented platform modules bind.

The names below load on first access, so that importing a documented
platform module (which imports :mod:`~sglang.runtime.selection.api`)
stays cheap.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.selection.api import RuntimePlatformAPI
    from sglang.runtime.selection.classes import build_platform, import_qualname
    from sglang.runtime.selection.current import (
        initialize_current_platform,
        platform_dists,
        reset_selection,
        resolve_platform,
        selected_platform_dist,
        selection_report,
    )
    from sglang.runtime.selection.engine import LOGGER_NAME, Progress, select
    from sglang.runtime.selection.errors import (
        PlatformContractError,
        PlatformInitError,
        PlatformSelectionError,
    )
    from sglang.runtime.selection.outcome import CallbackStatus, Selected, SelectionMode
    from sglang.runtime.selection.record import ReportBuilder
    from sglang.runtime.selection.report import CallbackOutcome, SelectionReport

__all__ = [
    "LOGGER_NAME",
    "CallbackOutcome",
    "CallbackStatus",
    "PlatformContractError",
    "PlatformInitError",
    "PlatformSelectionError",
    "Progress",
    "ReportBuilder",
    "RuntimePlatformAPI",
    "Selected",
    "SelectionMode",
    "SelectionReport",
    "build_platform",
    "import_qualname",
    "initialize_current_platform",
    "platform_dists",
    "reset_selection",
    "resolve_platform",
    "select",
    "selected_platform_dist",
    "selection_report",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.runtime.selection.api": ("RuntimePlatformAPI",),
        "sglang.runtime.selection.classes": ("build_platform", "import_qualname"),
        "sglang.runtime.selection.current": (
            "initialize_current_platform",
            "platform_dists",
            "reset_selection",
            "resolve_platform",
            "selected_platform_dist",
            "selection_report",
        ),
        "sglang.runtime.selection.engine": ("LOGGER_NAME", "Progress", "select"),
        "sglang.runtime.selection.errors": (
            "PlatformContractError",
            "PlatformInitError",
            "PlatformSelectionError",
        ),
        "sglang.runtime.selection.outcome": ("CallbackStatus", "Selected", "SelectionMode"),
        "sglang.runtime.selection.record": ("ReportBuilder",),
        "sglang.runtime.selection.report": ("CallbackOutcome", "SelectionReport"),
    },
)
