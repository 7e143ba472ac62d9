"""Undoing patches: one apply's rollback, and ``restore()`` of them all.

:class:`Snapshot` is the registry's bookkeeping before an apply and
:class:`Journal` the attribute bindings the apply changed, newest last; a
required failure puts both back (:meth:`Journal.undo`,
:meth:`Snapshot.restore`). :func:`restore_all` undoes every patch a registry
holds and keeps its registrations, pending again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from sglang.runtime.hooks.aliases import Rebind, rebind_aliases
from sglang.runtime.hooks.report import HookStatus
from sglang.runtime.hooks.state import Entry, LocationKey, Patch, RegistryState
from sglang.runtime.hooks.targets import Location, uninstall

__all__ = ["MISSING", "Journal", "Snapshot", "restore_all"]

MISSING = object()
"""Stands for "the owner held nothing under that name" (``__dict__.get`` default)."""


@dataclass
class Snapshot:
    """A registry's bookkeeping before an apply (every container copied)."""

    dirty: set[str]
    path_loc: dict[str, LocationKey]
    loc_paths: dict[LocationKey, set[str]]
    locations: dict[LocationKey, Location]
    patches: dict[LocationKey, Patch]
    statuses: dict[int, tuple[HookStatus, str | None, str | None]]

    @classmethod
    def take(cls, state: RegistryState) -> Snapshot:
        """Copy *state*'s bookkeeping and every entry's status."""
        return cls(
            dirty=set(state.dirty),
            path_loc=dict(state.path_loc),
            loc_paths={key: set(paths) for key, paths in state.loc_paths.items()},
            locations=dict(state.locations),
            patches=dict(state.patches),
            statuses={id(e): (e.status, e.reason, e.location) for e in state.entries},
        )

    def changed(self, entry: Entry) -> bool:
        """Whether *entry*'s status, reason or location differs from the snapshot's."""
        return self.statuses.get(id(entry)) != (entry.status, entry.reason, entry.location)

    def restore(self, state: RegistryState, failed: Collection[Entry]) -> None:
        """Put the bookkeeping back; *failed* entries keep their new status.

        Registrations made since the snapshot (by a module the apply
        imported) stay and remain pending.
        """
        late = {e.path.dotted for e in state.entries if id(e) not in self.statuses and e.active}
        state.dirty = self.dirty | late
        state.path_loc = self.path_loc
        state.loc_paths = self.loc_paths
        state.locations = self.locations
        state.patches = self.patches
        keep = {id(entry) for entry in failed}
        for entry in state.entries:
            saved = self.statuses.get(id(entry))
            if saved is not None and id(entry) not in keep:
                entry.status, entry.reason, entry.location = saved


@dataclass
class Journal:
    """The attribute bindings an apply changed, with what each owner held before."""

    records: list[tuple[Location, object]] = field(default_factory=list)

    def record(self, location: Location) -> None:
        """Remember what *location*'s owner holds now (before it is changed)."""
        self.records.append((location, location.owner.__dict__.get(location.name, MISSING)))

    def undo(self) -> None:
        """Put every recorded binding back, newest first."""
        for location, previous in reversed(self.records):
            if previous is MISSING:
                if location.name in location.owner.__dict__:
                    delattr(location.owner, location.name)
            else:
                setattr(location.owner, location.name, previous)
        self.records.clear()


def restore_all(state: RegistryState) -> None:
    """Undo every patch (and alias) of *state*; keep the registrations, now pending."""
    rebinds: dict[int, Rebind] = {}
    for patch in reversed(list(state.patches.values())):
        location = patch.target.location
        if location.owner.__dict__.get(location.name, MISSING) is patch.installed:
            uninstall(patch.target)
        if patch.target.kind.propagates_aliases:
            rebinds[id(patch.installed)] = Rebind(
                patch.installed, patch.target.raw, location.owner, location.name, patch.exclude
            )
    rebind_aliases(rebinds)
    state.patches.clear()
    state.path_loc.clear()
    state.loc_paths.clear()
    state.locations.clear()
    for entry in state.entries:
        if entry.status in (HookStatus.APPLIED, HookStatus.SUPERSEDED):
            entry.status, entry.reason, entry.location = HookStatus.PENDING, None, None
    state.dirty = {
        path for path, entries in state.by_path.items() if any(e.active for e in entries)
    }
