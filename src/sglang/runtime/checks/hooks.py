"""The hooks a plugin registers, against the documented hook targets.

:func:`run_callback` imports a general plugin and runs its callback the way
the plugin loader does (the plugin's source set, so each hook it registers
is attributed to it); nothing is applied, no target is imported.
:func:`check_hooks` then reports, for each hook of a plugin, whether its
target is documented, whether the registration states the target's
signature version, and a version the target no longer has.
"""

from __future__ import annotations

from sglang.runtime import versions
from sglang.runtime.checks.findings import CheckedHook, PluginCheck, Severity
from sglang.runtime.checks.platforms import record_source
from sglang.runtime.checks.signatures import near_miss
from sglang.runtime.discovery import EntryPointRecord
from sglang.runtime.hooks.contract import upgrade_fix
from sglang.runtime.plugin_source import PluginSource, plugin_source
from sglang.runtime.plugins import runtime_plugins
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.contract import VersionStatus
from sglang.sdk.targets import HOOK_TARGETS, documented_target

__all__ = ["check_hooks", "run_callback"]


def run_callback(spec: RuntimeSpec, record: EntryPointRecord, check: PluginCheck) -> None:
    """Import *record*'s general plugin and run its callback (its hooks are registered only)."""
    with plugin_source(record_source(record)):
        try:
            callback = record.load()
            if not callable(callback):
                raise TypeError(f"{record.value} is a {type(callback).__name__}, not a callable")
            callback()
        except Exception as exc:
            text = str(exc).splitlines()[0] if str(exc) else ""
            check.add(
                "plugin-failed",
                Severity.ERROR,
                record.value,
                f"loading {spec.title} general plugin {record.name!r} failed: "
                f"{type(exc).__name__}: {text}; repair or reinstall {record.dist_name}, or "
                f"leave {record.name!r} out of {spec.plugins_env}",
            )


def check_hooks(spec: RuntimeSpec, source: PluginSource, check: PluginCheck) -> None:
    """Report every hook *source* registered in *spec*'s registry; findings go to *check*.

    Registrations on documented targets that state no version are reported
    in one note for the plugin.
    """
    unstated: list[str] = []
    for info in runtime_plugins(spec).registry.hooks():
        if info.source != source:
            continue
        target = documented_target(info.target)
        table = versions.versions_for(versions.hook_key(info.target))
        check.hooks.append(
            CheckedHook(
                info.target,
                info.hook_type.name,
                info.hook,
                table is not None,
                info.api_version,
                table.current if table is not None else None,
            )
        )
        subject = f"{info.hook_type.name} hook {info.hook} on {info.target}"
        if table is None:
            close = near_miss(info.target.replace(":", "."), HOOK_TARGETS, limit=3)
            hint = f" (did you mean {close}?)" if close is not None else ""
            check.add(
                "hook-undocumented-target",
                Severity.WARNING,
                subject,
                f"{info.target!r} is not a documented hook target{hint}: the hook works, but "
                "its target may change or move without notice; prefer a documented target "
                "or a platform method",
            )
            continue
        if target is not None and target.runtime != spec.name:
            check.add(
                "hook-wrong-runtime",
                Severity.WARNING,
                subject,
                f"{info.target!r} is a {target.runtime} target, but the hook is registered "
                f"in {spec.title}'s registry, which never runs where the target is called; "
                f"register it through the {target.runtime} hook registry",
            )
        fix = upgrade_fix(info.target, table)
        if info.api_version is None:
            unstated.append(info.target)
            continue
        status = table.status(info.api_version)
        if status is VersionStatus.UNSUPPORTED:
            message = versions.unsupported_message("the registration", info.api_version, table, fix)
            check.add("hook-version-unsupported", Severity.ERROR, subject, message)
        elif status is VersionStatus.DEPRECATED:
            message = versions.deprecation_message("the registration", info.api_version, table, fix)
            check.add("hook-version-deprecated", Severity.WARNING, subject, message)
    if unstated:
        targets = ", ".join(dict.fromkeys(unstated))
        check.add(
            "hook-version-unstated",
            Severity.NOTE,
            source.name,
            f"{len(unstated)} registration(s) on documented targets state no api_version "
            f"({targets}); pass api_version= (the target's signature version) so that a later "
            "sglang refuses a stale hook when hooks are applied instead of failing inside the call",
        )
