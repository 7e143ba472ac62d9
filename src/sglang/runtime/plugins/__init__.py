"""General-plugin loading for both runtimes, written once.

* :mod:`~sglang.runtime.plugins.policy`: which general plugins load and
  whose failures abort startup, computed in one place
  (:func:`compute_policy`) from ``SGLANG_PLUGINS`` and the platform
  selection;
* :mod:`~sglang.runtime.plugins.loader`: :func:`load_group`, which imports
  a group's allowed plugins and runs their callbacks, and its outcomes;
* :mod:`~sglang.runtime.plugins.state`: :class:`RuntimePlugins`, one
  runtime's registry and its two once-per-process steps (registration,
  hook application).

The documented paths ``sglang.srt.plugins`` and
``sglang.multimodal_gen.runtime.platforms.plugins`` bind these objects for
their runtime and hold no logic of their own.
"""

from sglang.runtime.plugins.loader import (
    PluginConflictError,
    PluginLoadError,
    PluginOutcome,
    PluginStage,
    PluginState,
    load_group,
)
from sglang.runtime.plugins.policy import (
    PlatformDists,
    PluginPolicy,
    SelectionDists,
    compute_policy,
    enforce_policy,
    excluded_reason,
)
from sglang.runtime.plugins.state import (
    RuntimePlugins,
    load_plugins_by_group,
    reset_all_for_tests,
    runtime_plugins,
    spec_for_group,
)

__all__ = [
    "PlatformDists",
    "PluginConflictError",
    "PluginLoadError",
    "PluginOutcome",
    "PluginPolicy",
    "PluginStage",
    "PluginState",
    "RuntimePlugins",
    "SelectionDists",
    "compute_policy",
    "enforce_policy",
    "excluded_reason",
    "load_group",
    "load_plugins_by_group",
    "reset_all_for_tests",
    "runtime_plugins",
    "spec_for_group",
]
