"""Rebinding module-level aliases of patched objects (``from x import f``).

A module that ran ``from pkg.mod import f`` holds its own reference to the
original ``f``; patching ``pkg.mod.f`` alone would leave that module calling
the unhooked function. :func:`rebind_aliases` walks ``sys.modules`` once
for a whole batch of patched objects: it builds nothing per target and
skips, at C speed, every module that holds none of them
(``set.isdisjoint(map(id, module.__dict__.values()))``), so its cost is one
pass over the loaded modules however many targets an apply patches.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

__all__ = ["AliasBinding", "Rebind", "rebind_aliases", "undo_aliases"]


@dataclass(frozen=True)
class Rebind:
    """Rebind every module-level name bound to *old* to *new*.

    Attributes:
        old: The object to look for (an original or a previous wrapper).
        new: What to bind instead.
        primary: The module holding the target itself (already patched; skipped).
        name: The target's name in *primary*.
        exclude: Modules left alone: those defining the target's hooks, so a
            plugin's own ``from x import Cls`` keeps naming the original.
    """

    old: object
    new: object
    primary: object
    name: str
    exclude: frozenset[str]


@dataclass(frozen=True)
class AliasBinding:
    """One module-level name that :func:`rebind_aliases` changed."""

    module: ModuleType
    name: str
    old: object
    new: object


def _dict_items(namespace: dict[str, object]) -> list[tuple[str, object]]:
    while True:
        try:
            return list(namespace.items())
        except RuntimeError:  # changed size during iteration (another thread importing)
            continue


def rebind_aliases(rebinds: Mapping[int, Rebind]) -> list[AliasBinding]:
    """Apply *rebinds* (keyed by ``id(old)``) to every loaded module; return what changed."""
    if not rebinds:
        return []
    wanted = set(rebinds)
    changed: list[AliasBinding] = []
    loaded: list[tuple[str, object]] = list(sys.modules.items())
    for module_name, module in loaded:
        if not isinstance(module, ModuleType):  # sys.modules may hold other objects
            continue
        namespace = module.__dict__
        try:
            if wanted.isdisjoint(map(id, namespace.values())):
                continue
        except RuntimeError:
            pass
        for name, value in _dict_items(namespace):
            rebind = rebinds.get(id(value))
            if rebind is None or rebind.old is not value:
                continue
            if module is rebind.primary and name == rebind.name:
                continue
            if module_name in rebind.exclude:
                continue
            namespace[name] = rebind.new
            changed.append(AliasBinding(module, name, value, rebind.new))
    return changed


def undo_aliases(bindings: list[AliasBinding]) -> None:
    """Revert *bindings* (newest first), where nothing else rebound the name since."""
    for binding in reversed(bindings):
        namespace = binding.module.__dict__
        if namespace.get(binding.name) is binding.new:
            namespace[binding.name] = binding.old
