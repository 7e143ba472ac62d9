"""One ``apply_hooks()`` call as a transaction over a registry's state.

The algorithm, for the target paths that changed since the last apply
("dirty": new registrations, disabled hooks, restored patches):

1. Take the dirty paths shallowest first, so that replacing a class
   (``pkg.mod.Cls``) happens before its attributes (``pkg.mod.Cls.meth``)
   are looked up, and those attributes are then patched on the class that
   is installed by then.
2. Fail the hooks that state a signature version their documented target
   no longer has (:mod:`~sglang.runtime.hooks.contract`). Locate each path
   (importing its module), group the paths by the attribute they name, and
   rebuild that attribute's chain *from the original* with every active
   hook of every path naming it. Hooks that do not fit the target (an
   AROUND hook on a class, an unresolvable path) are marked failed.
3. Rebind module-level aliases of every rebuilt function and class in one
   pass over ``sys.modules``.
4. If a *required* hook failed, undo everything this apply did (patches,
   aliases, bookkeeping) and raise :class:`HookApplyError`; best-effort
   failures are logged once each.

Before step 1, the hooks whose target did not exist
(:class:`~sglang.runtime.hooks.targets.HookTargetMissing`) become pending
again, so each apply retries them until the target appears. A required one
still missing fails that apply again; a best-effort one is logged again only
when its failure changes, and once more (INFO) when it finally applies.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from sglang.runtime.discovery import normalize_dist_name
from sglang.runtime.hooks.aliases import AliasBinding, Rebind, rebind_aliases, undo_aliases
from sglang.runtime.hooks.chain import ChainSpec
from sglang.runtime.hooks.compose import chain_spec, installed_object, unfit_reason
from sglang.runtime.hooks.contract import version_problem
from sglang.runtime.hooks.messages import (
    best_effort_warning,
    replace_conflict_warning,
    replaced_class_member_warning,
    required_error,
)
from sglang.runtime.hooks.report import HookInfo, HookStatus
from sglang.runtime.hooks.state import Entry, LocationKey, Patch, RegistryState
from sglang.runtime.hooks.targets import (
    HookTargetError,
    HookTargetMissing,
    Location,
    ResolvedTarget,
    TargetKind,
    inspect_target,
    install,
    locate,
    uninstall,
)
from sglang.runtime.hooks.undo import MISSING, Journal, Snapshot
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.hooks import HookType

__all__ = ["Transaction"]


@dataclass
class _AliasState:
    location: Location
    target: ResolvedTarget
    olds: list[object] = field(default_factory=list)


def _is_required(entry: Entry, required: frozenset[str]) -> bool:
    if entry.source is None:
        return True
    return normalize_dist_name(entry.source.dist_name) in required


class Transaction:
    """Apply a registry's dirty paths; roll back on a required failure."""

    def __init__(
        self,
        state: RegistryState,
        runtime: RuntimeSpec,
        logger: logging.Logger,
        required_dists: frozenset[str],
    ) -> None:
        self.state = state
        self.runtime = runtime
        self.logger = logger
        self.required = frozenset(normalize_dist_name(d) for d in required_dists)
        self.snapshot = Snapshot.take(state)
        self.journal = Journal()
        self.aliases: list[AliasBinding] = []
        self.alias_states: dict[LocationKey, _AliasState] = {}
        self.failed: list[Entry] = []
        self.changed: dict[int, Entry] = {}
        self.retried: list[tuple[Entry, str | None]] = []

    # -- the algorithm -------------------------------------------------------

    def run(self) -> tuple[HookInfo, ...]:
        """Apply, enforce the failure policy, and report the hooks whose status changed."""
        self._retry_missing()
        try:
            self._process_dirty()
            self._propagate_aliases()
        except BaseException:
            self.rollback()
            raise
        required_failures = [e for e in self.failed if _is_required(e, self.required)]
        for entry in self.failed:
            if entry not in required_failures and entry.warned_reason != entry.reason:
                entry.warned_reason = entry.reason
                self.logger.warning("%s", best_effort_warning(self.runtime, entry))
        if required_failures:
            self.rollback()
            raise required_error(self.runtime, required_failures)
        self._log_recovered()
        return tuple(
            entry.info() for entry in self.changed.values() if self.snapshot.changed(entry)
        )

    def _retry_missing(self) -> None:
        """Make the hooks whose target did not exist pending again (after the snapshot)."""
        state = self.state
        for entry in state.entries:
            if entry.retried:
                self.retried.append((entry, entry.reason))
                entry.status, entry.reason = HookStatus.PENDING, None
                state.dirty.add(entry.path.dotted)
        if self.retried:  # a module file created since the last lookup must be seen
            importlib.invalidate_caches()

    def _log_recovered(self) -> None:
        for entry, reason in self.retried:
            if entry.status in (HookStatus.APPLIED, HookStatus.SUPERSEDED):
                entry.warned_reason = None
                self.logger.info(
                    "%s: %s is %s now: its target exists (an earlier apply failed: %s)",
                    self.runtime.title,
                    entry.label,
                    entry.status.value,
                    reason,
                )

    def _process_dirty(self) -> None:
        state = self.state
        budget = 8 * (len(state.by_path) + 1)
        while state.dirty:
            batch = sorted(state.dirty, key=lambda path: (path.count("."), path))
            state.dirty.clear()
            for path in batch:
                state.dirty.discard(path)
                budget -= 1
                if budget < 0:
                    raise RuntimeError(
                        f"{self.runtime.title} hook application did not settle; "
                        f"class replacements keep re-triggering each other: {sorted(state.dirty)}"
                    )
                self._process_path(path)

    def _process_path(self, path: str) -> None:
        state = self.state
        logger = self.logger.name
        entries = self._keep(state.active_entries(path), lambda e: version_problem(e, logger))
        old_key = state.path_loc.get(path)
        if not entries:
            if old_key is not None:
                self._detach(path, old_key)
            return
        try:
            location = locate(entries[0].path)
        except HookTargetError as exc:
            for entry in entries:
                self._fail(entry, str(exc), retry=isinstance(exc, HookTargetMissing))
            if old_key is not None:
                self._detach(path, old_key)
            return
        key = location.key
        if old_key is not None and old_key != key:
            self._detach(path, old_key)
        state.path_loc[path] = key
        state.loc_paths.setdefault(key, set()).add(path)
        state.locations[key] = location
        self._rebuild(key)

    def _detach(self, path: str, key: LocationKey) -> None:
        state = self.state
        state.path_loc.pop(path, None)
        paths = state.loc_paths.get(key)
        if paths is not None:
            paths.discard(path)
        self._rebuild(key)

    def _rebuild(self, key: LocationKey) -> None:
        state = self.state
        location = state.locations.get(key)
        if location is None:
            return
        paths = state.loc_paths.get(key, set())
        entries = sorted(
            (entry for path in paths for entry in state.active_entries(path)),
            key=lambda entry: entry.seq,
        )
        patch = state.patches.get(key)
        current = location.owner.__dict__.get(location.name, MISSING)
        if patch is not None and current is not patch.installed:
            self.logger.debug(
                "%s was rebound outside the hook engine; its hooks now wrap the new object",
                location.qualname,
            )
            del state.patches[key]
            patch = None
        if patch is None and not entries:
            self._forget(key)
            return
        try:
            if patch is None:
                target = inspect_target(location)
            elif patch.target.own:
                target = patch.target
            else:  # inherited: wrap what the bases hold now (their hooks may have changed)
                target = inspect_target(location, inherited=True)
        except HookTargetError as exc:  # e.g. the inherited member was deleted from the base
            for entry in entries:
                self._fail(entry, str(exc), retry=isinstance(exc, HookTargetMissing))
            if patch is not None:
                self._set(location, None, patch.target)
                del state.patches[key]
            return
        valid = self._keep(entries, lambda entry: unfit_reason(entry, target))
        spec, winner = self._chain_spec(valid, target, location)
        previous = patch.installed if patch is not None else None
        alias_state = self._alias_state(key, location, target)
        if spec.empty:
            if patch is not None:
                self._set(location, None, target)
                del state.patches[key]
                alias_state.olds.append(patch.installed)
                self._refresh_inheritors(location)
            if not paths:
                self._forget(key)
            return
        installed = installed_object(target, spec)
        try:
            self._set(location, installed, target)
        except Exception as exc:  # e.g. a built-in or extension type refusing setattr
            for entry in valid:
                self._fail(entry, f"cannot patch {location.qualname}: {type(exc).__name__}: {exc}")
            return
        exclude = frozenset(entry.hook_module for entry in valid)
        state.patches[key] = Patch(target, installed, exclude, winner)
        if winner is not None:
            self._check_replaced_owner(winner, target)
        alias_state.olds.append(target.raw)
        if previous is not None:
            alias_state.olds.append(previous)
        for entry in valid:
            if entry.hook_type is HookType.REPLACE and entry is not winner:
                continue
            self._mark(entry, HookStatus.APPLIED, None, location.qualname)
        if target.kind is TargetKind.CLASS:
            self._cascade(paths)
        self._refresh_inheritors(location)

    def _keep(self, entries: list[Entry], problem: Callable[[Entry], str | None]) -> list[Entry]:
        """The entries *problem* finds nothing against; each other one fails with its reason."""
        kept: list[Entry] = []
        for entry in entries:
            reason = problem(entry)
            if reason is None:
                kept.append(entry)
            else:
                self._fail(entry, reason)
        return kept

    def _chain_spec(
        self, valid: list[Entry], target: ResolvedTarget, location: Location
    ) -> tuple[ChainSpec, Entry | None]:
        spec, winner, losers = chain_spec(valid, target)
        for loser in losers:
            assert winner is not None
            self._mark(
                loser,
                HookStatus.SUPERSEDED,
                f"superseded by REPLACE hook {winner.hook_name} of {winner.origin}",
                location.qualname,
            )
            if loser.origin != winner.origin:  # plugins, or modules of direct registrations
                pair = (loser.seq, winner.seq)
                if pair not in self.state.warned_conflicts:
                    self.state.warned_conflicts.add(pair)
                    self.logger.warning(
                        "%s", replace_conflict_warning(self.runtime, location, loser, winner)
                    )
        return spec, winner

    def _check_replaced_owner(self, winner: Entry, target: ResolvedTarget) -> None:
        """Warn when a REPLACE lands on a class that a class REPLACE installed."""
        location = target.location
        for patch in self.state.patches.values():
            klass = patch.winner
            if (
                klass is None
                or patch.target.kind is not TargetKind.CLASS
                or patch.installed is not location.owner
            ):
                continue
            original = patch.target.original
            pair = (klass.seq, winner.seq)
            if isinstance(original, type) and pair not in self.state.warned_conflicts:
                self.state.warned_conflicts.add(pair)
                message = replaced_class_member_warning(
                    self.runtime, winner, klass, location, original, own=target.own
                )
                self.logger.warning("%s", message)

    def _cascade(self, paths: set[str]) -> None:
        """After a class changed, re-resolve every registered path inside it."""
        prefixes = tuple(path + "." for path in paths)
        for other, entries in self.state.by_path.items():
            if other.startswith(prefixes) and any(entry.active for entry in entries):
                self.state.dirty.add(other)

    def _refresh_inheritors(self, location: Location) -> None:
        """After a class member changed, rebuild the patched subclasses inheriting it.

        Their chains wrap what they inherited when they were built; without
        this, a subclass would keep calling the base's previous object (its
        original, or a chain with hooks since disabled).
        """
        owner, state = location.owner, self.state
        if not isinstance(owner, type):
            return
        for key, patch in state.patches.items():
            other = patch.target.location
            if (
                not patch.target.own
                and other.name == location.name
                and isinstance(other.owner, type)
                and other.owner is not owner
                and issubclass(other.owner, owner)
            ):
                state.dirty.update(state.loc_paths.get(key, ()))

    def _forget(self, key: LocationKey) -> None:
        state = self.state
        if not state.loc_paths.get(key):
            state.loc_paths.pop(key, None)
            state.locations.pop(key, None)

    # -- recorded mutations --------------------------------------------------

    def _set(self, location: Location, value: object | None, target: ResolvedTarget) -> None:
        self.journal.record(location)
        if value is None:
            uninstall(target)
        else:
            install(location, value)

    def _alias_state(
        self, key: LocationKey, location: Location, target: ResolvedTarget
    ) -> _AliasState:
        alias_state = self.alias_states.get(key)
        if alias_state is None:
            alias_state = self.alias_states[key] = _AliasState(location, target)
        return alias_state

    def _mark(
        self, entry: Entry, status: HookStatus, reason: str | None, location: str | None
    ) -> None:
        entry.status = status
        entry.reason = reason
        entry.location = location
        self.changed[id(entry)] = entry

    def _fail(self, entry: Entry, reason: str, *, retry: bool = False) -> None:
        entry.retry = retry
        self._mark(entry, HookStatus.FAILED, reason, entry.location)
        self.failed.append(entry)

    def _propagate_aliases(self) -> None:
        rebinds: dict[int, Rebind] = {}
        for key, alias_state in self.alias_states.items():
            if not alias_state.target.kind.propagates_aliases:
                continue
            location = alias_state.location
            final = location.owner.__dict__.get(location.name, MISSING)
            if final is MISSING:
                continue
            patch = self.state.patches.get(key)
            exclude = patch.exclude if patch is not None else frozenset()
            for old in alias_state.olds:
                if old is not final:
                    rebinds[id(old)] = Rebind(old, final, location.owner, location.name, exclude)
        self.aliases = rebind_aliases(rebinds)

    def rollback(self) -> None:
        """Undo every patch and alias this apply made and its bookkeeping."""
        undo_aliases(self.aliases)
        self.aliases = []
        self.journal.undo()
        self.snapshot.restore(self.state, self.failed)
