"""The mutable bookkeeping behind a :class:`~sglang.runtime.hooks.HookRegistry`.

Kept apart from the public class so that the apply algorithm
(:mod:`sglang.runtime.hooks.apply`) and the registration API share one
plain data structure. Nothing here is public.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sglang.runtime.hooks.report import HookInfo, HookStatus
from sglang.runtime.hooks.targets import Location, ResolvedTarget, TargetPath
from sglang.runtime.plugin_source import PluginSource
from sglang.sdk.hooks import HookType

__all__ = ["Entry", "LocationKey", "Patch", "RegistryState"]

LocationKey = tuple[int, str]

ACTIVE = frozenset({HookStatus.PENDING, HookStatus.APPLIED, HookStatus.SUPERSEDED})


def _qualified_name(obj: object) -> str:
    module = getattr(obj, "__module__", None) or "?"
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{module}.{qualname}"


@dataclass(eq=False)
class Entry:
    """One registration (mutable status)."""

    seq: int
    path: TargetPath
    hook: Callable[..., Any]
    hook_type: HookType
    source: PluginSource | None
    api_version: int | None = None
    """The target signature version the registration states, if any."""
    status: HookStatus = HookStatus.PENDING
    reason: str | None = None
    location: str | None = None
    retry: bool = False
    """Set with FAILED: the target did not exist, so the next apply tries again."""
    warned_reason: str | None = None
    """The failure last logged for this hook (a retry failing alike is not logged again)."""

    @property
    def active(self) -> bool:
        """Whether the entry takes part in its target's chain."""
        return self.status in ACTIVE

    @property
    def hook_name(self) -> str:
        """``module.qualname`` of the hook callable."""
        return _qualified_name(self.hook)

    @property
    def hook_module(self) -> str:
        """The module defining the hook."""
        return getattr(self.hook, "__module__", None) or "?"

    @property
    def origin(self) -> str:
        """Who registered it, for messages."""
        if self.source is not None:
            return self.source.describe()
        return f"direct registration (module {self.hook_module})"

    @property
    def label(self) -> str:
        """``AROUND hook m.f of plugin 'p' (distribution d 1.0) on target 'x.y'``."""
        return (
            f"{self.hook_type.name} hook {self.hook_name} of {self.origin} "
            f"on target {self.path.text!r}"
        )

    def info(self) -> HookInfo:
        """A frozen snapshot for reports."""
        return HookInfo(
            target=self.path.text,
            hook_type=self.hook_type,
            hook=self.hook_name,
            source=self.source,
            status=self.status,
            reason=self.reason,
            location=self.location,
            hook_module=self.hook_module,
            retried=self.retried,
            api_version=self.api_version,
        )

    @property
    def retried(self) -> bool:
        """Whether the next apply tries this hook again (failed: its target did not exist)."""
        return self.status is HookStatus.FAILED and self.retry


@dataclass(frozen=True)
class Patch:
    """What is installed at one location, and what to restore."""

    target: ResolvedTarget
    installed: object
    exclude: frozenset[str]
    """Modules left alone by alias propagation (those defining the hooks)."""
    winner: Entry | None = None
    """The REPLACE hook whose object is installed (or wrapped), if any."""


@dataclass
class RegistryState:
    """All registrations and patches of one registry."""

    entries: list[Entry] = field(default_factory=list)
    by_path: dict[str, list[Entry]] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    path_loc: dict[str, LocationKey] = field(default_factory=dict)
    loc_paths: dict[LocationKey, set[str]] = field(default_factory=dict)
    locations: dict[LocationKey, Location] = field(default_factory=dict)
    patches: dict[LocationKey, Patch] = field(default_factory=dict)
    warned_conflicts: set[tuple[int, int]] = field(default_factory=set)
    counter: itertools.count[int] = field(default_factory=itertools.count)

    def active_entries(self, path: str) -> list[Entry]:
        """The active entries registered on *path* (dotted form), in order."""
        return [entry for entry in self.by_path.get(path, ()) if entry.active]

    def disable(self, matches: Callable[[Entry], bool], reason: str) -> int:
        """Disable every active or retried entry *matches* accepts; return how many.

        Applied ones are taken out by the next apply (their paths become
        dirty); failed ones waiting for their target are no longer retried.
        """
        count = 0
        for entry in self.entries:
            if (entry.active or entry.retried) and matches(entry):
                entry.status, entry.reason = HookStatus.DISABLED, reason
                self.dirty.add(entry.path.dotted)
                count += 1
        return count
