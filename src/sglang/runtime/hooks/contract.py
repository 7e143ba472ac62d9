"""A registration's stated ``api_version`` against its documented target's signature.

``HookRegistry.register(..., api_version=1)`` records the version of the
target's signature the hook was written against. When hooks are applied,
:func:`version_problem` applies the version rule of
:mod:`sglang.runtime.versions`: a version the target no longer has refuses
the hook (the apply's failure policy then decides between aborting and one
WARNING); a deprecated one applies with one WARNING; a registration without
a version, or on an undocumented target, is not judged.
"""

from __future__ import annotations

from sglang.runtime import versions
from sglang.runtime.hooks.state import Entry
from sglang.sdk.contract import ContractVersions, VersionStatus

__all__ = ["upgrade_fix", "version_problem"]


def upgrade_fix(target: str, table: ContractVersions) -> str:
    """What a hook on documented *target* stating an old version must change."""
    from sglang.sdk.targets import documented_target

    found = documented_target(target)
    signature = f" {found.signature}" if found is not None else ""
    return (
        f"update the hook to the target's version-{table.current} signature{signature} "
        f"and state api_version={table.current}"
    )


def version_problem(entry: Entry, logger: str) -> str | None:
    """Why *entry* cannot be applied because of its stated version, or ``None``.

    A deprecated version is logged (once per hook) as a WARNING on *logger*.
    """
    if entry.api_version is None:
        return None
    key = versions.hook_key(entry.path.dotted)
    table = versions.versions_for(key)
    if table is None:  # an undocumented target has no signature version to compare
        return None
    status = table.status(entry.api_version)
    if status is VersionStatus.CURRENT:
        return None
    fix = upgrade_fix(entry.path.dotted, table)
    if status is VersionStatus.UNSUPPORTED:
        return versions.unsupported_message("it", entry.api_version, table, fix)
    message = versions.deprecation_message(entry.label, entry.api_version, table, fix)
    versions.warn_deprecated(key, f"{entry.origin}: {entry.hook_name}", message, logger=logger)
    return None
