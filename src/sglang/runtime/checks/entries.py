"""One check per installed entry point, or per class named on the command line.

:func:`check_platform` finds a platform plugin's classes and judges each,
then the hooks its modules registered; :func:`check_general` runs a general
plugin's callback and judges the hooks it registered; :func:`check_named_class`
judges a class given as ``module:Class`` (``sglang plugins check --class``).
Nothing is selected, no hook is applied and no device is initialised.
"""

from __future__ import annotations

from sglang.runtime.checks.findings import PluginCheck, Severity
from sglang.runtime.checks.hooks import check_hooks, run_callback
from sglang.runtime.checks.platforms import check_class, find_classes, record_source
from sglang.runtime.discovery import EntryPointRecord
from sglang.runtime.selection.classes import build_platform, import_qualname
from sglang.runtime.selection.errors import PlatformContractError, PlatformSelectionError
from sglang.runtime.spec import DIFFUSION, SRT, RuntimeSpec

__all__ = ["check_general", "check_named_class", "check_platform"]


def _check(kind: str, record: EntryPointRecord) -> PluginCheck:
    return PluginCheck(
        kind, record.name, record.group, record.value, record.dist_name, record.dist_version
    )


def check_platform(spec: RuntimeSpec, record: EntryPointRecord) -> PluginCheck:
    """Check platform plugin *record* of *spec*: its classes, then its modules' hooks."""
    check = _check(f"{spec.name}-platform", record)
    for cls, found_by in find_classes(spec, record, check):
        check_class(spec, cls, found_by, check)
    check_hooks(spec, record_source(record), check)
    return check


def check_general(spec: RuntimeSpec, record: EntryPointRecord) -> PluginCheck:
    """Check general plugin *record* of *spec*: run its callback, judge its hooks."""
    check = _check(f"{spec.name}-plugin", record)
    run_callback(spec, record, check)
    check_hooks(spec, record_source(record), check)
    return check


def check_named_class(qualname: str) -> PluginCheck:
    """Check the platform class *qualname* (``module:Class``) of whichever runtime it subclasses."""
    check = PluginCheck("class", qualname)
    try:
        target = import_qualname(qualname)
    except Exception as exc:
        check.add(
            "plugin-failed",
            Severity.ERROR,
            qualname,
            f"importing {qualname} failed: {type(exc).__name__}: {exc}",
        )
        return check
    spec = next(
        (
            s
            for s in (SRT, DIFFUSION)
            if isinstance(target, type) and issubclass(target, s.platform_base)
        ),
        None,
    )
    if spec is None:
        check.add(
            "platform-contract",
            Severity.ERROR,
            qualname,
            f"{qualname} is not a subclass of {SRT.base_path} or {DIFFUSION.base_path}",
        )
        return check
    try:
        cls, _instance = build_platform(
            spec,
            qualname,
            source=f"{spec.title} platform class {qualname} (--class)",
            dist_name=None,
            plugin=True,
            check_version=False,
        )
    except (PlatformSelectionError, PlatformContractError) as exc:
        check.add("platform-contract", Severity.ERROR, qualname, str(exc))
        return check
    check.kind = f"{spec.name}-platform"
    check_class(spec, cls, "option", check)
    return check
