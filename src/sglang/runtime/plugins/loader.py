"""General-plugin loading, written once for both runtimes.

One :class:`RuntimePlugins` per runtime (see :func:`runtime_plugins`) owns
that runtime's :class:`~sglang.runtime.hooks.HookRegistry` and two
activation steps, each run once per process through an
:class:`~sglang.runtime.gate.OnceGate`:

* **registration** (:meth:`RuntimePlugins.register_plugins`): read the
  runtime's general-plugin entry points, keep those allowed by
  ``SGLANG_PLUGINS`` and not shipped by an unselected platform
  distribution, import each and run its callback with
  :data:`~sglang.runtime.plugin_source._current_plugin_source` set, so every
  hook it registers records the plugin and distribution;
* **application** (:meth:`RuntimePlugins.apply_plugin_hooks`): register
  first if needed, then resolve and patch the targets.

Platform selection sets the same plugin source while it imports and calls
each platform entry point's activation callback and while it builds the
selected plugin's platform class. Hooks a platform module registers at
import time therefore belong to their distribution, and the loader
disables those of every unselected platform distribution
(:meth:`~sglang.runtime.hooks.HookRegistry.exclude_dists`) before it
applies anything (see :func:`enforce_policy`).

SRT's ``load_plugins()`` runs both; diffusion's ``load_plugins()`` runs the
first and ``apply_plugin_hooks()`` the second.

Failure policy: a plugin of the selected platform's distribution is part of
that platform's contract, so a failure to import it, in its callback or in
applying its hooks aborts startup with a :class:`PluginLoadError` (or
:class:`~sglang.runtime.hooks.HookApplyError`) naming the plugin, the
distribution, what failed and how to fix it. Any other plugin is
best-effort: it is skipped with one WARNING on the ``sglang.plugins``
logger carrying the same facts.
"""

from __future__ import annotations

import enum
import logging
import os
from dataclasses import dataclass

from sglang.runtime.allowlist import read_allowlist
from sglang.runtime.discovery import (
    EntryPointRecord,
    duplicate_names,
    entry_point_index,
    normalize_dist_name,
)
from sglang.runtime.gate import OnceGate
from sglang.runtime.hooks import (
    PLUGINS_LOGGER,
    HookInfo,
    HookRegistry,
    PluginSource,
    _current_plugin_source,
    plugin_source,
)
from sglang.runtime.plugins.policy import (
    PlatformDists,
    PluginPolicy,
    SelectionDists,
    enforce_policy,
    excluded_reason,
)
from sglang.runtime.spec import DIFFUSION, SRT, PerRuntime, RuntimeSpec

__all__ = [
    "PlatformDists",
    "PluginConflictError",
    "PluginLoadError",
    "PluginOutcome",
    "PluginPolicy",
    "PluginStage",
    "PluginState",
    "RuntimePlugins",
    "_current_plugin_source",
    "enforce_policy",
    "excluded_reason",
    "load_group",
    "reset_all_for_tests",
    "runtime_plugins",
    "spec_for_group",
]


class PluginStage(enum.Enum):
    """The step of loading a general plugin."""

    LOAD = "load"
    """Importing the entry point's module and looking up its callback."""

    CALLBACK = "callback"
    """Running the callback (which registers hooks)."""

    APPLY = "apply"
    """Applying the hooks it registered."""


class PluginState(enum.Enum):
    """What registration did with one general-plugin entry point."""

    LOADED = "loaded"
    """Imported, and its callback ran."""

    NOT_ALLOWED = "not allowed"
    """Left out by the ``SGLANG_PLUGINS`` allowlist."""

    EXCLUDED = "excluded"
    """Shipped by a platform distribution other than the selected one."""

    FAILED = "failed"
    """Best-effort plugin skipped after a failure (a WARNING was logged)."""


@dataclass(frozen=True)
class PluginOutcome:
    """One general-plugin entry point and what registration did with it.

    Attributes:
        source: The plugin: entry-point name, distribution, version, group.
        value: The entry point's object reference (``"pkg.mod:register"``).
        state: Loaded, not allowed, excluded or failed.
        required: Whether it belongs to the selected platform's distribution.
        stage: The failed step, for :attr:`PluginState.FAILED`.
        error: The failure, for :attr:`PluginState.FAILED`.
    """

    source: PluginSource
    value: str
    state: PluginState
    required: bool
    stage: PluginStage | None = None
    error: str | None = None


class PluginLoadError(RuntimeError):
    """A required general plugin failed to import or in its callback; startup stops.

    Attributes:
        source: The plugin.
        stage: The step that failed.
    """

    def __init__(self, message: str, source: PluginSource, stage: PluginStage) -> None:
        super().__init__(message)
        self.source = source
        self.stage = stage


class PluginConflictError(PluginLoadError):
    """Two or more distributions declare one general-plugin name in one group.

    Raised before any of them is imported: ``SGLANG_PLUGINS`` names entry
    points, so it cannot choose between them.

    Attributes:
        sources: Every plugin declaring a conflicting name.
    """

    def __init__(self, message: str, sources: tuple[PluginSource, ...]) -> None:
        super().__init__(message, sources[0], PluginStage.LOAD)
        self.sources = sources


_logger = logging.getLogger(PLUGINS_LOGGER)


def _source(record: EntryPointRecord) -> PluginSource:
    return PluginSource(record.name, record.dist_name, record.dist_version, record.group)


def _reject_conflicts(spec: RuntimeSpec, records: tuple[EntryPointRecord, ...]) -> None:
    conflicts = duplicate_names(records)
    if not conflicts:
        return
    lines = [
        f"{spec.title} general plugin name {name!r} is declared by more than one distribution "
        f"in entry-point group {items[0].group!r}: "
        + ", ".join(f"{record.dist} ({record.value})" for record in items)
        + "."
        for name, items in conflicts.items()
    ]
    lines.append(
        f"Entry-point names must be unique in a group, because {spec.plugins_env} names entry "
        "points and cannot tell them apart; nothing has been imported. Fix: uninstall all but "
        "one of them (pip uninstall <distribution>), or leave the name out of "
        f"{spec.plugins_env} to load neither."
    )
    sources = tuple(_source(record) for items in conflicts.values() for record in items)
    raise PluginConflictError("\n".join(lines), sources)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def load_group(
    spec: RuntimeSpec,
    registry: HookRegistry,
    *,
    group: str | None = None,
    policy: PluginPolicy,
) -> tuple[PluginOutcome, ...]:
    """Import every allowed general plugin of *group* and run its callback.

    Args:
        spec: The runtime (names it in messages, gives the allowlist variable).
        registry: Where the callbacks' hooks go (failed plugins' hooks are
            disabled there).
        group: The entry-point group; *spec*'s general-plugin group by default.
        policy: The allowlist, exclusions and the required distribution.

    Returns:
        One outcome per entry point of the group, in discovery order.

    Raises:
        PluginConflictError: two distributions declare one allowed name
            (raised before anything is imported).
        PluginLoadError: a plugin of the selected platform's distribution
            failed to import or in its callback.
    """
    records = entry_point_index().group(group or spec.plugins_group)
    excluded = frozenset(normalize_dist_name(d) for d in policy.excluded_dists)
    required = frozenset(normalize_dist_name(d) for d in policy.required_dists)
    _reject_conflicts(
        spec,
        tuple(r for r in records if policy.allowlist is None or r.name in policy.allowlist),
    )
    outcomes: list[PluginOutcome] = []
    for record in records:
        source = _source(record)
        dist = normalize_dist_name(record.dist_name)
        is_required = dist in required
        if policy.allowlist is not None and record.name not in policy.allowlist:
            _logger.debug("%s: %s not in %s", spec.title, source.describe(), spec.plugins_env)
            outcomes.append(PluginOutcome(source, record.value, PluginState.NOT_ALLOWED, False))
            continue
        if dist in excluded and not is_required:
            _logger.debug("%s: %s ships an unselected platform", spec.title, source.describe())
            outcomes.append(PluginOutcome(source, record.value, PluginState.EXCLUDED, False))
            continue
        outcomes.append(_load_one(spec, registry, record, source, is_required))
    return tuple(outcomes)


def _load_one(
    spec: RuntimeSpec,
    registry: HookRegistry,
    record: EntryPointRecord,
    source: PluginSource,
    required: bool,
) -> PluginOutcome:
    with plugin_source(source):
        try:
            callback = record.load()
            if not callable(callback):
                raise TypeError(
                    f"{record.value} is a {type(callback).__name__}, not a callable "
                    "(a general-plugin entry point must name an argument-less function)"
                )
        except Exception as exc:
            return _failed(spec, registry, record, source, required, PluginStage.LOAD, exc)
        try:
            callback()
        except Exception as exc:
            return _failed(spec, registry, record, source, required, PluginStage.CALLBACK, exc)
    _logger.debug("%s: loaded %s", spec.title, source.describe())
    return PluginOutcome(source, record.value, PluginState.LOADED, required)


def _failed(
    spec: RuntimeSpec,
    registry: HookRegistry,
    record: EntryPointRecord,
    source: PluginSource,
    required: bool,
    stage: PluginStage,
    exc: Exception,
) -> PluginOutcome:
    what = (
        f"importing {record.value}" if stage is PluginStage.LOAD else f"its callback {record.value}"
    )
    error = _error_text(exc)
    registry.disable_source(source, f"plugin failed in {what}: {error}")
    if required:
        raise PluginLoadError(
            f"{spec.title} startup aborted: general plugin {record.name!r} of distribution "
            f"{record.dist} (the selected platform's distribution) failed in {what}: {error}. "
            "Plugins of the selected platform's distribution are part of its contract, so "
            "startup stops instead of leaving the platform half-initialised. Fix or reinstall "
            f"{record.dist_name}, or set {spec.plugins_env} to an allowlist without "
            f"{record.name!r} to disable it.",
            source,
            stage,
        ) from exc
    _logger.warning(
        "%s: skipping general plugin %r of distribution %s: %s failed: %s. Plugins outside "
        "the selected platform's distribution are best-effort, so startup continues "
        "without it. Fix or upgrade %s, or leave %r out of %s to silence this warning.",
        spec.title,
        record.name,
        record.dist,
        what,
        error,
        record.dist_name,
        record.name,
        spec.plugins_env,
    )
    return PluginOutcome(source, record.value, PluginState.FAILED, False, stage, error)


class RuntimePlugins:
    """The general plugins of one runtime: its registry and its two gated steps.

    Args:
        spec: The runtime.
        registry: The hook registry (a new one by default).
        platform_dists: Where the platform distributions come from
            (:mod:`sglang.runtime.selection.current` by default).
    """

    def __init__(
        self,
        spec: RuntimeSpec,
        *,
        registry: HookRegistry | None = None,
        platform_dists: PlatformDists | None = None,
    ) -> None:
        self.spec = spec
        self.registry = registry if registry is not None else HookRegistry(spec)
        self._dists: PlatformDists = (
            platform_dists if platform_dists is not None else SelectionDists()
        )
        self._policy: PluginPolicy | None = None
        self._outcomes: tuple[PluginOutcome, ...] = ()
        self.registration: OnceGate[tuple[PluginOutcome, ...]] = OnceGate(
            f"{spec.title} general-plugin registration", self._register
        )
        self.application: OnceGate[tuple[HookInfo, ...]] = OnceGate(
            f"{spec.title} general-plugin hook application", self._apply
        )

    def __repr__(self) -> str:
        return f"<RuntimePlugins {self.spec.name}: {self.registration.state.value}>"

    # -- policy ------------------------------------------------------------------

    def policy(self) -> PluginPolicy:
        """The allowlist, the selected and the excluded distributions.

        Computed at registration (selecting the platform if a plugin could be
        affected); before that, computed on demand and not cached.
        """
        if self._policy is not None:
            return self._policy
        return self._compute_policy()

    def _undecided_platform_hooks(self, policy: PluginPolicy | None) -> bool:
        """Whether a platform module registered hooks that *policy* neither requires nor excludes.

        Platform selection registered them (it ran, or runs, in this process)
        after a policy computed without selecting.
        """
        return any(
            info.source is not None
            and info.source.group == self.spec.platforms_group
            and (policy is None or not policy.decides(info.source.dist_name))
            for info in self.registry.hooks()
        )

    def _compute_policy(self) -> PluginPolicy:
        allowlist = read_allowlist(self.spec.plugins_env, os.environ, entry_point_index())
        candidates = [
            record
            for record in entry_point_index().group(self.spec.plugins_group)
            if allowlist is None or record.name in allowlist
        ]
        # Platform modules that registered hooks while selection imported them
        # need a decision too (selection has already run then: no extra cost).
        needed = bool(candidates) or self._undecided_platform_hooks(None)
        installed = self._dists.installed(self.spec) if needed else frozenset()
        # No plugin to load, no platform hook, or no platform distribution:
        # nothing to exclude or require, so the platform need not be selected
        # (no hardware probing).
        selected = self._dists.selected(self.spec) if installed else None
        excluded = frozenset(
            dist
            for dist in installed
            if selected is None or normalize_dist_name(dist) != normalize_dist_name(selected)
        )
        return PluginPolicy(allowlist, selected, excluded)

    # -- the steps ---------------------------------------------------------------

    def _register(self) -> tuple[PluginOutcome, ...]:
        policy = self._policy = self._compute_policy()
        enforce_policy(self.spec, self.registry, policy)
        self._outcomes = load_group(self.spec, self.registry, policy=policy)
        return self._outcomes

    def _apply(self) -> tuple[HookInfo, ...]:
        self.registration.run()
        if self._undecided_platform_hooks(self._policy):
            # selection ran after registration, which had no reason to select
            # (diffusion: load_plugins(), current_platform, apply_plugin_hooks())
            policy = self._policy = self._compute_policy()
            enforce_policy(self.spec, self.registry, policy)
        self.registry.apply_hooks()
        return self.registry.hooks()

    def _inside_a_step(self) -> bool:
        return self.registration.is_reentrant() or self.application.is_reentrant()

    def register_plugins(self) -> tuple[PluginOutcome, ...]:
        """Run registration once per process; return its outcomes.

        A call from inside a plugin callback returns at once (the outer call
        finishes the step); other threads wait for the first.

        Raises:
            PluginLoadError: a required plugin failed (now or on an earlier
                call; the same exception is raised again).
        """
        self.registration.run()
        return self._outcomes

    def apply_plugin_hooks(self) -> tuple[HookInfo, ...]:
        """Register if needed, then apply the hooks, once per process.

        Returns:
            Every registered hook with its status.

        Raises:
            PluginLoadError: a required plugin failed to load.
            HookApplyError: a required hook failed to apply (its apply was
                rolled back).
        """
        if self._inside_a_step():
            return ()
        self.application.run()
        return self.registry.hooks()

    def load_plugins(self) -> tuple[HookInfo, ...]:
        """SRT's single step: register and apply (see :meth:`apply_plugin_hooks`)."""
        return self.apply_plugin_hooks()

    def outcomes(self) -> tuple[PluginOutcome, ...]:
        """What registration did with each entry point (empty before it ran)."""
        return self._outcomes

    def reset(self, *, restore: bool = True) -> None:
        """Forget both steps, every hook and the required distribution. For tests only.

        With *restore* (the default) every patch is undone first.
        """
        self.registration.reset()
        self.application.reset()
        self.registry.reset(restore=restore)
        self._policy = None
        self._outcomes = ()


_runtimes: PerRuntime[RuntimePlugins] = PerRuntime(RuntimePlugins)


def runtime_plugins(spec: RuntimeSpec) -> RuntimePlugins:
    """Return the process's :class:`RuntimePlugins` of *spec* (created on first use)."""
    return _runtimes.get(spec)


def spec_for_group(group: str) -> RuntimeSpec:
    """The runtime whose general-plugin group is *group* (SRT for any other group)."""
    return DIFFUSION if group == DIFFUSION.plugins_group else SRT


def reset_all_for_tests(*, restore: bool = True) -> None:
    """Reset both runtimes' plugin state (:meth:`RuntimePlugins.reset`). Tests only."""
    for plugins in _runtimes.values():
        plugins.reset(restore=restore)
