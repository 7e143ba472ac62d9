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
``HookRegistry`` / ``plugin_hook``, never with SRT's. This module only
binds diffusion's objects of :mod:`sglang.runtime.plugins`.
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
from sglang.runtime.plugins import (
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

_diffusion = runtime_plugins(DIFFUSION)

HookRegistry: Final[_HookRegistry] = _diffusion.registry
"""Diffusion's hook registry: ``register()``, ``apply_hooks()``, ``restore()``, ``hooks()``."""

plugin_hook = HookRegistry.plugin_hook
"""Decorator registering a hook in diffusion's registry: ``@plugin_hook(target, type=...)``."""

load_plugins = _diffusion.register_plugins
apply_plugin_hooks = _diffusion.apply_plugin_hooks
plugin_outcomes = _diffusion.outcomes
