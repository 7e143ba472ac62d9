"""Diffusion general plugins: the hook registry, registration and hook application.

Diffusion separates the two steps because resolving a dotted hook target
may import the target's whole module graph:

* :func:`load_plugins` discovers the ``sglang.multimodal_gen.plugins``
  entry points (filtered by ``SGLANG_PLUGINS``, minus unselected platform
  distributions) and runs their callbacks, which only *register* hooks;
  no target is imported;
* :func:`apply_plugin_hooks` registers first if needed, then resolves and
  patches the targets (target imports are allowed from here on).

Each runs once per process. Hooks are registered with this module's
``HookRegistry`` / ``plugin_hook``, never with SRT's.
"""

from __future__ import annotations

from typing import Final

from sglang.runtime.hooks import (
    HookApplyError,
    HookInfo,
    HookStatus,
    PluginSource,
    _current_plugin_source,
)
from sglang.runtime.hooks import HookRegistry as _HookRegistry
from sglang.runtime.plugins.loader import (
    PluginConflictError,
    PluginLoadError,
    PluginOutcome,
    runtime_plugins,
)
from sglang.runtime.spec import DIFFUSION
from sglang.sdk.hooks import HookTarget, HookType, hook_target

__all__ = [
    "HookApplyError",
    "HookInfo",
    "HookRegistry",
    "HookStatus",
    "HookTarget",
    "HookType",
    "PluginConflictError",
    "PluginLoadError",
    "PluginOutcome",
    "PluginSource",
    "_current_plugin_source",
    "apply_plugin_hooks",
    "hook_target",
    "load_plugins",
    "plugin_hook",
    "plugin_outcomes",
]

HookRegistry: Final[_HookRegistry] = runtime_plugins(DIFFUSION).registry
"""Diffusion's hook registry: ``register()``, ``apply_hooks()``, ``restore()``, ``hooks()``."""

plugin_hook = HookRegistry.plugin_hook
"""Decorator registering a hook in diffusion's registry: ``@plugin_hook(target, type=...)``."""


def load_plugins() -> tuple[PluginOutcome, ...]:
    """Discover diffusion general plugins and run their callbacks (register only).

    Runs once per process behind the activation gate. No hook target is
    imported.

    Returns:
        What was done with each entry point (empty on a re-entrant call).

    Raises:
        PluginLoadError: a plugin of the selected platform's distribution
            failed to import or in its callback.
    """
    return runtime_plugins(DIFFUSION).register_plugins()


def apply_plugin_hooks() -> tuple[HookInfo, ...]:
    """Register the plugins if that has not happened, then apply their hooks.

    Runs once per process behind the activation gate; hooks registered
    later are applied by ``HookRegistry.apply_hooks()``.

    Returns:
        Every registered diffusion hook with its status.

    Raises:
        PluginLoadError: a required plugin failed to load.
        HookApplyError: a hook of the selected platform's distribution could
            not be applied (the apply was rolled back).
    """
    return runtime_plugins(DIFFUSION).apply_plugin_hooks()


def plugin_outcomes() -> tuple[PluginOutcome, ...]:
    """What :func:`load_plugins` did with each diffusion general-plugin entry point."""
    return runtime_plugins(DIFFUSION).outcomes()
