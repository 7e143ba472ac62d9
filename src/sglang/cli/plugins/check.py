"""``sglang plugins check``: judge installed plugins against the contract, for a vendor's CI.

Every entry point of every group (or those whose entry-point or
distribution name is given) is checked without selecting a platform,
applying a hook or initialising a device: platform plugins by their
classes (:mod:`sglang.runtime.checks`), general plugins by the hooks their
callback registers, serve backends by the registry's own checks (the
factory is called, the returned :class:`~sglang.sdk.ServeBackend` checked).
Deprecated versions are findings here, not log lines.

The exit code is 0 when nothing is wrong, 1 when a finding is an error or,
with ``--strict``, a warning; notes never fail. ``--json`` prints one
object, documented in the CLI reference: ``sglang``, ``strict``,
``exit_code``, ``summary`` (``checked``, ``errors``, ``warnings``,
``notes``) and ``plugins`` (one object per check: ``kind``, ``name``,
``group``, ``value``, ``distribution``, ``version``, ``classes``,
``hooks``, ``findings``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sglang.runtime import versions
from sglang.runtime.checks import PluginCheck, Severity
from sglang.runtime.discovery import EntryPointRecord, entry_point_index, normalize_dist_name
from sglang.sdk import constants

__all__ = ["check_plugins", "render", "run_check"]

_TITLES = {
    "srt-platform": "SRT platform plugin",
    "diffusion-platform": "diffusion platform plugin",
    "srt-plugin": "SRT general plugin",
    "diffusion-plugin": "diffusion general plugin",
    "serve-backend": "serve backend",
    "class": "platform class",
    "unknown": "no installed plugin",
}


def _serve_backend(record: EntryPointRecord) -> PluginCheck:
    from sglang.cli.serve._errors import ServeError
    from sglang.cli.serve._registry import read_registry

    check = PluginCheck(
        "serve-backend",
        record.name,
        record.group,
        record.value,
        record.dist_name,
        record.dist_version,
    )
    registry = read_registry(warn=False)
    for rejection in registry.rejections:
        if record in rejection.records:
            check.add("serve-backend-unusable", Severity.ERROR, record.name, rejection.message())
            return check
    try:
        loaded = registry.load(record)
    except ServeError as exc:
        check.add("serve-backend-unusable", Severity.ERROR, record.name, str(exc))
        return check
    if loaded.backend.detect is None:
        check.add(
            "serve-backend-no-detect",
            Severity.NOTE,
            record.name,
            f"the backend has no detect(), so --model-type auto never picks it; it is "
            f"reachable as --model-type {record.name}",
        )
    return check


def _check_record(record: EntryPointRecord) -> PluginCheck:
    from sglang.runtime.checks import check_general, check_platform
    from sglang.runtime.spec import DIFFUSION, SRT

    if record.group == constants.SERVE_BACKENDS_GROUP:
        return _serve_backend(record)
    spec = SRT if record.group in (SRT.platforms_group, SRT.plugins_group) else DIFFUSION
    if record.group == spec.platforms_group:
        return check_platform(spec, record)
    return check_general(spec, record)


def check_plugins(names: Sequence[str], *, classes: Sequence[str] = ()) -> list[PluginCheck]:
    """Check the plugins *names* select (every one when empty), then the *classes*.

    A name selects the entry points of that name or of the distribution of
    that name (any spelling); a name that selects nothing is an error. With
    *classes* and no *names*, only the classes are checked.
    """
    from sglang.runtime.checks import check_named_class

    index = entry_point_index()
    records = [r for group in constants.ALL_ENTRY_POINT_GROUPS for r in index.group(group)]
    wanted = {normalize_dist_name(name) for name in names}
    if names:
        records = [
            r for r in records if r.name in names or normalize_dist_name(r.dist_name) in wanted
        ]
    elif classes:
        records = []
    checks: list[PluginCheck] = []
    with versions.DeprecationCollector() as collected:
        for record in records:
            check = _check_record(record)
            for _key, _plugin, message in collected.messages:
                check.add("api-version-deprecated", Severity.WARNING, record.name, message)
            collected.messages.clear()
            checks.append(check)
    checks.extend(check_named_class(qualname) for qualname in classes)
    known = {r.name for r in records} | {normalize_dist_name(r.dist_name) for r in records}
    for name in names:
        if name not in known and normalize_dist_name(name) not in known:
            unknown = PluginCheck("unknown", name)
            installed = sorted(
                {r.name for g in constants.ALL_ENTRY_POINT_GROUPS for r in index.group(g)}
            )
            unknown.add(
                "unknown-plugin",
                Severity.ERROR,
                name,
                f"no installed entry point or distribution is named {name!r}; installed "
                f"entry points: {', '.join(installed) or '(none)'} (see sglang plugins)",
            )
            checks.append(unknown)
    return checks


def _summary(checks: Sequence[PluginCheck]) -> dict[str, int]:
    return {
        "checked": len(checks),
        "errors": sum(c.count(Severity.ERROR) for c in checks),
        "warnings": sum(c.count(Severity.WARNING) for c in checks),
        "notes": sum(c.count(Severity.NOTE) for c in checks),
    }


def _exit_code(summary: dict[str, int], *, strict: bool) -> int:
    return 1 if summary["errors"] or (strict and summary["warnings"]) else 0


def _head(check: PluginCheck) -> str:
    title = _TITLES.get(check.kind, check.kind)
    if check.distribution is None:
        return f"{title} {check.name}"
    return f"{title} {check.name!r} ({check.distribution} {check.version}) = {check.value}"


def render(checks: Sequence[PluginCheck], *, strict: bool = False) -> str:
    """The text report: per check, what was inspected and each finding; then the totals."""
    lines: list[str] = []
    for check in checks:
        lines.append(_head(check))
        for cls in check.classes:
            version = "undeclared" if cls.api_version is None else cls.api_version
            lines.append(f"  class {cls.qualname} (by {cls.found_by}; api_version {version})")
        for hook in check.hooks:
            where = (
                f"documented, signature version {hook.target_version}"
                if hook.documented
                else "undocumented"
            )
            stated = "none" if hook.api_version is None else hook.api_version
            lines.append(
                f"  hook {hook.hook_type} {hook.hook_name} on {hook.target} "
                f"({where}; states {stated})"
            )
        for finding in check.findings:
            lines.append(
                f"  {finding.severity.value}: [{finding.code}] {finding.subject}: {finding.message}"
            )
        if not check.findings:
            lines.append("  ok")
    summary = _summary(checks)
    lines.append(
        f"{summary['checked']} checked: {summary['errors']} error(s), {summary['warnings']} "
        f"warning(s), {summary['notes']} note(s){' (--strict)' if strict else ''}"
    )
    return "\n".join(lines)


def run_check(
    names: Sequence[str],
    *,
    classes: Sequence[str] = (),
    as_json: bool = False,
    strict: bool = False,
) -> int:
    """Check, print the report (text or JSON) and return the exit code (0 or 1)."""
    checks = check_plugins(names, classes=classes)
    summary = _summary(checks)
    code = _exit_code(summary, strict=strict)
    if as_json:
        import json

        from sglang._version import __version__

        print(
            json.dumps(
                {
                    "sglang": __version__,
                    "strict": strict,
                    "exit_code": code,
                    "summary": summary,
                    "plugins": [check.as_json() for check in checks],
                }
            )
        )
    else:
        print(render(checks, strict=strict))
    return code
