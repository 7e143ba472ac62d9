"""SRT general plugins: ``load_plugins()`` and ``load_plugins_by_group()``.

:func:`load_plugins` is SRT's single plugin activation step, run once per
process (main process before ``prepare_server_args()``, each scheduler
subprocess before ``Scheduler()``)::

    load_plugins()
      ├── _get_excluded_dists()        platform distributions other than the selected one
      ├── HookRegistry.exclude_dists() disable the hooks their platform modules registered
      ├── load_plugins_by_group(...)   entry points of "sglang.srt.plugins", filtered by
      │                                SGLANG_PLUGINS, minus the excluded distributions
      ├── for each plugin:             _current_plugin_source set while it is imported
      │     callback()                 and while its callback registers hooks
      └── HookRegistry.apply_hooks()   resolve and patch the targets

Hooks are registered through :mod:`sglang.srt.plugins.hook_registry`. This
module only binds SRT's objects of :mod:`sglang.runtime.plugins`.
"""

from __future__ import annotations

from sglang.runtime.hooks import HookApplyError, PluginSource, _current_plugin_source
from sglang.runtime.plugins import (
    PluginConflictError,
    PluginLoadError,
    PluginOutcome,
    PluginStage,
    PluginState,
    load_plugins_by_group,
    runtime_plugins,
)
from sglang.runtime.spec import SRT

__all__ = [
    "HookApplyError",
    "PluginConflictError",
    "PluginLoadError",
    "PluginOutcome",
    "PluginSource",
    "PluginStage",
    "PluginState",
    "_current_plugin_source",
    "_get_excluded_dists",
    "load_plugins",
    "load_plugins_by_group",
    "plugin_outcomes",
]

_srt = runtime_plugins(SRT)

load_plugins = _srt.load_plugins
_get_excluded_dists = _srt.excluded_dists
plugin_outcomes = _srt.outcomes
