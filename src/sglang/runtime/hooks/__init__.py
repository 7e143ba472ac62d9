"""The hook engine, written once and instantiated per runtime.

A general plugin injects behaviour into any function, method or class by
registering hooks (BEFORE, AFTER, AROUND, REPLACE) against a target path;
:class:`HookRegistry` records them, patches the targets on
:meth:`~HookRegistry.apply_hooks`, re-applies after late registrations,
undoes its patches on :meth:`~HookRegistry.restore`, and reports every hook
with its source and status through :meth:`~HookRegistry.hooks`.

Modules:

* :mod:`~sglang.runtime.hooks.targets`: target paths, resolution, patching;
* :mod:`~sglang.runtime.hooks.chain`: composition of several hooks;
* :mod:`~sglang.runtime.hooks.aliases`: rebinding ``from x import f`` aliases;
* :mod:`~sglang.runtime.hooks.apply`: one apply as a transaction;
* :mod:`~sglang.runtime.hooks.undo`: rolling one apply back, restoring them all;
* :mod:`~sglang.runtime.hooks.messages`: the warnings and errors of an apply;
* :mod:`~sglang.runtime.hooks.registry`: the public registry;
* :mod:`~sglang.runtime.hooks.report`: statuses, reports and errors.

Which plugin registered a hook lives in :mod:`sglang.runtime.plugin_source`
(re-exported here), a small module (the standard library and the sdk's
record base only) that platform selection imports without loading the hook engine.
"""

from sglang.runtime.hooks.registry import HookRegistry
from sglang.runtime.hooks.report import HookApplyError, HookInfo, HookStatus, format_hooks
from sglang.runtime.hooks.targets import HookTargetError, HookTargetMissing, TargetKind
from sglang.runtime.plugin_source import (
    PLUGINS_LOGGER,
    PluginSource,
    _current_plugin_source,
    current_plugin_source,
    plugin_source,
)
from sglang.sdk.hooks import HookTarget, HookType, hook_target

__all__ = [
    "PLUGINS_LOGGER",
    "HookApplyError",
    "HookInfo",
    "HookRegistry",
    "HookStatus",
    "HookTarget",
    "HookTargetError",
    "HookTargetMissing",
    "HookType",
    "PluginSource",
    "TargetKind",
    "_current_plugin_source",
    "current_plugin_source",
    "format_hooks",
    "hook_target",
    "plugin_source",
]
