"""Loading one group of general plugins: :func:`load_group` and its outcomes.

:func:`load_group` reads a group's entry points, keeps those a
:class:`~sglang.runtime.plugins.policy.PluginPolicy` allows (``SGLANG_PLUGINS``,
minus the general plugins of unselected platform distributions), imports
each and runs its callback with
:data:`~sglang.runtime.plugin_source._current_plugin_source` set, so every
hook it registers records the plugin and distribution.

Failure policy: a plugin of the selected platform's distribution is part of
that platform's contract, so a failure to import it or in its callback
aborts startup with a :class:`PluginLoadError` naming the plugin, the
distribution, what failed and how to fix it. Any other plugin is
best-effort: it is skipped with one WARNING on the ``sglang.plugins``
logger carrying the same facts.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

from sglang.runtime.discovery import (
    EntryPointRecord,
    duplicate_names,
    entry_point_index,
)
from sglang.runtime.hooks import PLUGINS_LOGGER, HookRegistry, PluginSource, plugin_source
from sglang.runtime.plugins.policy import PluginPolicy
from sglang.runtime.spec import RuntimeSpec

__all__ = [
    "PluginConflictError",
    "PluginLoadError",
    "PluginOutcome",
    "PluginStage",
    "PluginState",
    "load_group",
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
    _reject_conflicts(spec, tuple(r for r in records if policy.allows(r.name)))
    outcomes: list[PluginOutcome] = []
    for record in records:
        source = _source(record)
        is_required = policy.requires(record.dist_name)
        if not policy.allows(record.name):
            _logger.debug("%s: %s not in %s", spec.title, source.describe(), spec.plugins_env)
            outcomes.append(PluginOutcome(source, record.value, PluginState.NOT_ALLOWED, False))
            continue
        if policy.excludes(record.dist_name):
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
