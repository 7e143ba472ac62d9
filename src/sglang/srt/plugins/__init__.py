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

Hooks are registered through :mod:`sglang.srt.plugins.hook_registry`.
"""

from __future__ import annotations

from collections.abc import Collection

from sglang.runtime.hooks import HookApplyError, HookInfo, PluginSource, _current_plugin_source
from sglang.runtime.plugins.loader import (
    PluginConflictError,
    PluginLoadError,
    PluginOutcome,
    PluginPolicy,
    PluginStage,
    PluginState,
    enforce_policy,
    load_group,
    runtime_plugins,
    spec_for_group,
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


def load_plugins() -> tuple[HookInfo, ...]:
    """Discover SRT general plugins, run their callbacks and apply their hooks.

    Runs once per process behind the activation gate: concurrent callers
    wait for the first, a call from inside a plugin callback returns at
    once, and a failure is remembered and raised again on every later call.

    Returns:
        Every registered SRT hook with its status (empty on a re-entrant call).

    Raises:
        PluginLoadError: a plugin of the selected platform's distribution
            failed to import or in its callback.
        HookApplyError: one of its hooks could not be applied (the apply was
            rolled back).
    """
    return runtime_plugins(SRT).load_plugins()


def _get_excluded_dists() -> frozenset[str]:
    """Platform distributions other than the selected one (their plugins are skipped)."""
    return runtime_plugins(SRT).policy().excluded_dists


def load_plugins_by_group(
    group: str, excluded_dists: Collection[str] | None = None
) -> tuple[PluginOutcome, ...]:
    """Import the allowed general plugins of *group* and run their callbacks (no apply).

    The low-level step under :func:`load_plugins`, not gated: every call
    loads again. Hooks go to the registry of the runtime owning *group*.

    Args:
        group: An entry-point group, normally ``"sglang.srt.plugins"``.
        excluded_dists: Distributions whose plugins are skipped; by default
            the platform distributions other than the selected one.

    Raises:
        PluginLoadError: a plugin of the selected platform's distribution failed.
    """
    plugins = runtime_plugins(spec_for_group(group))
    policy = plugins.policy()
    if excluded_dists is not None:
        policy = PluginPolicy(policy.allowlist, policy.selected_dist, frozenset(excluded_dists))
    enforce_policy(plugins.spec, plugins.registry, policy)
    return load_group(plugins.spec, plugins.registry, group=group, policy=policy)


def plugin_outcomes() -> tuple[PluginOutcome, ...]:
    """What :func:`load_plugins` did with each SRT general-plugin entry point."""
    return runtime_plugins(SRT).outcomes()
