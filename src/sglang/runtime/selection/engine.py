"""The selection algorithm, written once for both runtimes.

:func:`select` implements the SRT and the diffusion selection chains from
one :class:`~sglang.runtime.spec.RuntimeSpec`:

* the selector variable names a built-in alias (diffusion): that built-in,
  without probing;
* it names anything else: only that entry point is imported and called
  (explicit selection); a missing name, a duplicate name or a ``None``
  result is an error;
* it is unset: every installed callback (filtered by the runtime's
  allowlist variable, SRT's ``SGLANG_PLUGINS``) is called after duplicate
  names have been rejected; one activated plugin is used, several are an
  error, none falls back to the built-ins (SRT: ``SGLANG_USE_CPU_ENGINE``,
  then the probe order, then the base class).

It takes the environment, the entry-point index and the probe context as
arguments, so tests can drive it in-process; the process-wide, once-only
wrapper is :mod:`sglang.runtime.selection.current`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from sglang.runtime.discovery import duplicate_names
from sglang.runtime.environment import EnvironmentValueError, read_flag
from sglang.runtime.plugin_source import PluginSource, plugin_source
from sglang.runtime.selection import errors
from sglang.runtime.selection.classes import LOGGER_NAME, build_platform
from sglang.runtime.selection.errors import PlatformContractError, PlatformSelectionError
from sglang.runtime.selection.outcome import CallbackStatus, Selected, SelectionMode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.builtin.families import ProbeContext
    from sglang.runtime.discovery import EntryPointIndex, EntryPointRecord
    from sglang.runtime.selection.record import ReportBuilder
    from sglang.runtime.spec import RuntimeSpec

__all__ = ["LOGGER_NAME", "Progress", "Selected", "select"]

_INFO, _WARNING = 20, 30  # logging.INFO, logging.WARNING


class Progress:
    """What a running selection is doing now: the live state re-entrancy errors name.

    Kept by the per-runtime state (:mod:`sglang.runtime.selection.current`)
    next to its gates, apart from the :class:`ReportBuilder` log.
    """

    __slots__ = ("activity", "current")

    def __init__(self) -> None:
        self.current: EntryPointRecord | None = None
        """The entry point whose callback is running now, if any."""
        self.activity = ""
        """What selection is doing now, when not running a callback."""


def _log(level: int, message: str, *args: object) -> None:
    """Log to :data:`LOGGER_NAME` without importing :mod:`logging` just for INFO.

    Until something imports :mod:`logging`, no handler can be configured, so
    an INFO record would be dropped anyway; warnings always go out.
    """
    if level < _WARNING and "logging" not in sys.modules:
        return
    import logging

    logging.getLogger(LOGGER_NAME).log(level, message, *args)


def select(
    spec: RuntimeSpec,
    report: ReportBuilder,
    *,
    environ: Mapping[str, str],
    index: EntryPointIndex,
    probe_context: Callable[[], ProbeContext],
    progress: Progress | None = None,
) -> Selected:
    """Select *spec*'s platform, recording every step in *report*.

    Args:
        spec: The runtime.
        report: Filled in as selection proceeds, also when it fails.
        environ: The environment variables to read.
        index: The installed entry points.
        probe_context: Returns the context for built-in hardware probes;
            called only when probing is needed (it imports torch).
        progress: Kept up to date with what selection is doing (a fresh
            one by default).

    Raises:
        PlatformSelectionError: Selection failed (see the message).
        PlatformContractError: A plugin broke the platform contract.
    """
    progress = progress if progress is not None else Progress()
    value = environ.get(spec.selector_env)
    report.selector_value = value
    use_cpu_engine = _cpu_engine_flag(spec, environ)
    name = (value or "").strip()
    if name and name.lower() in spec.override_aliases:
        report.mode = SelectionMode.OVERRIDE_BUILTIN
        key = name.lower()
        reason = f"{spec.selector_env}={name} selects the built-in platform without probing"
        return _builtin(spec, report, progress, key, reason)
    if name:
        report.mode = SelectionMode.EXPLICIT
        return _explicit(spec, report, progress, name, index)
    report.mode = SelectionMode.AUTO
    return _auto(spec, report, progress, environ, index, probe_context, use_cpu_engine)


def _cpu_engine_flag(spec: RuntimeSpec, environ: Mapping[str, str]) -> bool:
    """Read the runtime's CPU-engine flag; a value that is not a boolean is an error.

    Read in every mode, so that a typo never goes unnoticed.
    """
    if spec.cpu_engine_env is None:
        return False
    try:
        return read_flag(spec.cpu_engine_env, environ.get(spec.cpu_engine_env))
    except EnvironmentValueError as exc:
        raise PlatformSelectionError(str(exc)) from None


def _explicit(
    spec: RuntimeSpec, report: ReportBuilder, progress: Progress, name: str, index: EntryPointIndex
) -> Selected:
    records = index.named(spec.platforms_group, name)
    _reject_reserved(spec, records)
    if not records:
        installed = (record.name for record in index.group(spec.platforms_group))
        raise PlatformSelectionError(errors.not_found(spec, name, installed))
    record = records[0]
    if len(records) > 1:
        raise PlatformSelectionError(errors.duplicates(spec, {name: records}))
    qualname = _run_callback(spec, report, progress, record)
    if qualname is None:
        raise PlatformSelectionError(errors.hardware_unavailable(spec, record))
    reason = f"explicit: {spec.selector_env}={name}"
    return _plugin(spec, report, progress, record, qualname, reason)


def _reject_reserved(spec: RuntimeSpec, records: Sequence[EntryPointRecord]) -> None:
    """Refuse entry points named like a built-in platform, before importing anything."""
    if not spec.reserved_names:
        return
    clashes = [record for record in records if record.name.lower() in spec.reserved_names]
    if clashes:
        raise PlatformSelectionError(errors.reserved_names(spec, clashes))


def _auto(
    spec: RuntimeSpec,
    report: ReportBuilder,
    progress: Progress,
    environ: Mapping[str, str],
    index: EntryPointIndex,
    probe_context: Callable[[], ProbeContext],
    use_cpu_engine: bool,
) -> Selected:
    records: Sequence[EntryPointRecord] = index.group(spec.platforms_group)
    allow = None
    if spec.auto_allowlist_env is not None:
        from sglang.runtime.allowlist import read_allowlist

        allow = read_allowlist(spec.auto_allowlist_env, environ, index)
    if allow is not None:
        report.allowlist = tuple(sorted(allow))
        report.filtered_out = tuple(record.name for record in records if record.name not in allow)
        records = [record for record in records if record.name in allow]
    _reject_reserved(spec, records)
    conflicts = duplicate_names(records)
    if conflicts:
        raise PlatformSelectionError(errors.duplicates(spec, conflicts))
    activated: list[tuple[EntryPointRecord, str]] = []
    for record in records:
        qualname = _run_callback(spec, report, progress, record)
        if qualname is not None:
            activated.append((record, qualname))
    if len(activated) > 1:
        raise PlatformSelectionError(errors.many_activated(spec, activated))
    if activated:
        record, qualname = activated[0]
        reason = f"auto: {record.name!r} is the only platform plugin that activated"
        return _plugin(spec, report, progress, record, qualname, reason)
    return _fallback(spec, report, progress, environ, probe_context, use_cpu_engine)


def _no_plugin(spec: RuntimeSpec, report: ReportBuilder) -> str:
    """``fallback: no plugin activated``, naming what the allowlist removed, if anything."""
    if report.filtered_out:
        removed = ", ".join(report.filtered_out)
        return f"fallback: no plugin activated ({spec.auto_allowlist_env} filtered out: {removed})"
    return "fallback: no plugin activated"


def _fallback(
    spec: RuntimeSpec,
    report: ReportBuilder,
    progress: Progress,
    environ: Mapping[str, str],
    probe_context: Callable[[], ProbeContext],
    use_cpu_engine: bool,
) -> Selected:
    no_plugin = _no_plugin(spec, report)
    if use_cpu_engine and spec.cpu_engine_env is not None and spec.cpu_engine_builtin is not None:
        flag = environ.get(spec.cpu_engine_env, "").strip()
        reason = f"{no_plugin} and {spec.cpu_engine_env}={flag}"
        return _builtin(spec, report, progress, spec.cpu_engine_builtin, reason)
    note = ""
    by_family = {}
    for key in spec.probe_order:
        family = spec.builtin(key).family
        if family is not None:
            by_family[family] = key
    if by_family:
        from sglang.runtime.builtin.families import probe_families

        progress.activity = "probing the built-in platforms' hardware"
        try:
            context = probe_context()
        except Exception as exc:
            raise PlatformSelectionError(errors.probe_failed(spec, exc)) from exc
        if context.torch is None:
            note = " (torch is not installed)"
            _log(
                _WARNING,
                "torch is not installed, so no %s accelerator can be detected "
                "(install it: pip install 'sglang[torch]')",
                spec.title,
            )
        outcomes = probe_families(by_family, context)
        report.probes = outcomes
        for outcome in outcomes:
            if outcome.error is not None:
                _log(
                    _WARNING,
                    "%s platform probe %r failed and counts as unavailable: %s",
                    spec.title,
                    outcome.family,
                    outcome.error,
                )
            if outcome.available:
                key = by_family[outcome.family]
                title = spec.builtin(key).title
                reason = f"{no_plugin} and {title} is available{note}"
                return _builtin(spec, report, progress, key, reason)
    if spec.default_builtin is None:  # pragma: no cover - both runtimes define one
        raise PlatformSelectionError(f"{spec.title} has no default built-in platform")
    titles = ", ".join(spec.builtin(key).title for key in spec.probe_order)
    reason = f"{no_plugin} and none of {titles} is available{note}"
    return _builtin(spec, report, progress, spec.default_builtin, reason)


def _source(record: EntryPointRecord) -> PluginSource:
    """The plugin source of hooks a platform entry point registers while selection loads it."""
    return PluginSource(
        name=record.name,
        dist_name=record.dist_name,
        dist_version=record.dist_version,
        group=record.group,
    )


def _run_callback(
    spec: RuntimeSpec, report: ReportBuilder, progress: Progress, record: EntryPointRecord
) -> str | None:
    """Import and call *record*'s activation callback; return its qualname or ``None``.

    Hooks the platform module registers meanwhile (at import or in the
    callback) are attributed to the entry point, so the plugin loader can
    tell the selected platform's hooks from those of the others.
    """
    progress.current = record
    try:
        with plugin_source(_source(record)):
            try:
                callback = record.load()
            except Exception as exc:
                report.record(record, CallbackStatus.FAILED, error=errors.format_exception(exc))
                raise PlatformSelectionError(
                    errors.callback_failed(spec, record, "importing", exc)
                ) from exc
            if not callable(callback):
                report.record(record, CallbackStatus.FAILED, error="not callable")
                raise PlatformContractError(errors.not_callable(spec, record, callback))
            try:
                result: object = callback()
            except Exception as exc:
                report.record(record, CallbackStatus.FAILED, error=errors.format_exception(exc))
                raise PlatformSelectionError(
                    errors.callback_failed(spec, record, "running", exc)
                ) from exc
    finally:
        progress.current = None
    if result is None:
        report.record(record, CallbackStatus.DECLINED)
        return None
    if not isinstance(result, str) or not result.strip():
        report.record(record, CallbackStatus.FAILED, error=f"returned {result!r}")
        raise PlatformContractError(errors.bad_result(spec, record, result))
    qualname = result.strip()
    report.record(record, CallbackStatus.ACTIVATED, result=qualname)
    return qualname


def _plugin(
    spec: RuntimeSpec,
    report: ReportBuilder,
    progress: Progress,
    record: EntryPointRecord,
    qualname: str,
    reason: str,
) -> Selected:
    progress.activity = f"constructing platform class {qualname}"
    with plugin_source(_source(record)):  # hooks its class module registers are the plugin's
        cls, platform = build_platform(
            spec,
            qualname,
            source=errors.who(spec, record),
            dist_name=record.dist_name,
            plugin=True,
            dist=record.dist,
        )
    report.platform_class = f"{cls.__module__}.{cls.__qualname__}"
    report.platform_dist = record.dist_name
    report.platform_entry_point = record.name
    report.reason = reason
    _log(
        _INFO,
        "%s platform: %s from %s (%s)",
        spec.title,
        report.platform_class,
        record.dist,
        reason,
    )
    _set_origin(
        platform,
        f"from entry point {record.name!r} of distribution {record.dist} ({reason})",
    )
    return Selected(platform, record.dist_name, record.dist, record.name)


def _builtin(
    spec: RuntimeSpec, report: ReportBuilder, progress: Progress, key: str, reason: str
) -> Selected:
    builtin = spec.builtin(key)
    progress.activity = f"constructing platform class {builtin.qualname}"
    cls, platform = build_platform(
        spec, builtin.qualname, source=errors.who_builtin(spec, key), dist_name=None, plugin=False
    )
    report.platform_class = f"{cls.__module__}.{cls.__qualname__}"
    report.reason = reason
    _log(_INFO, "%s platform: built-in %s (%s)", spec.title, report.platform_class, reason)
    _set_origin(
        platform, f"built-in {reason}" if reason.startswith("fallback:") else f"built-in: {reason}"
    )
    return Selected(platform, None)


def _set_origin(platform: object, origin: str) -> None:
    """Tell the platform how it was chosen (its ``repr`` shows it)."""
    try:
        setattr(platform, "_origin", origin)  # noqa: B010
    except (AttributeError, TypeError):  # __slots__ or a frozen __setattr__: no origin in repr
        return
