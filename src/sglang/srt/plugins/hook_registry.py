"""SRT hook registration: ``HookRegistry``, ``HookType`` and ``plugin_hook``.

``HookRegistry`` is SRT's process-local registry (an instance of
:class:`sglang.runtime.hooks.HookRegistry`); diffusion has its own in
:mod:`sglang.multimodal_gen.runtime.platforms.plugins`, and a hook
registered through one runtime never runs in the other::

    from sglang.srt.plugins.hook_registry import HookRegistry, HookType, plugin_hook

    HookRegistry.register("sglang.srt.managers.scheduler.Scheduler.__init__", my_hook,
                          HookType.AROUND)

    @plugin_hook("sglang.srt.managers.scheduler.Scheduler.run_batch", type=HookType.AROUND)
    def timed(original_fn, *args, **kwargs): ...
"""

from __future__ import annotations

from typing import Final

from sglang.runtime.hooks import HookInfo, HookStatus, PluginSource
from sglang.runtime.hooks import HookRegistry as _HookRegistry
from sglang.runtime.plugins import runtime_plugins
from sglang.runtime.spec import SRT
from sglang.sdk.hooks import HookTarget, HookType, hook_target

__all__ = [
    "HookInfo",
    "HookRegistry",
    "HookStatus",
    "HookTarget",
    "HookType",
    "PluginSource",
    "hook_target",
    "plugin_hook",
]

HookRegistry: Final[_HookRegistry] = runtime_plugins(SRT).registry
"""SRT's hook registry: ``register()``, ``apply_hooks()``, ``restore()``, ``hooks()``."""

plugin_hook = HookRegistry.plugin_hook
"""Decorator registering a hook in SRT's registry: ``@plugin_hook(target, type=...)``."""
