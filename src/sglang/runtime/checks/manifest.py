"""The contract manifest: everything a plugin may rely on, as one JSON-able value.

``sglang plugins contract`` prints it. It lists every platform method of
both runtimes with the class that defines it, its signature, its status
(Active, Planned, Compatibility), what a default ``sglang serve`` needs of
it and the contract version; the documented hook targets with their
signatures and versions; the versions of every contract; the entry-point
groups and the environment variables. A test compares it with a committed
snapshot, so a contract change is always a visible diff.
"""

from __future__ import annotations

import inspect
from typing import Any

from sglang.runtime.checks.signatures import format_signature
from sglang.runtime.spec import DIFFUSION, SRT, RuntimeSpec
from sglang.sdk import constants
from sglang.sdk.contract import CONTRACT_VERSIONS, ContractVersions
from sglang.sdk.targets import HOOK_TARGETS

__all__ = ["MANIFEST_VERSION", "contract_manifest"]

MANIFEST_VERSION = 1
"""The layout version of :func:`contract_manifest` (not a contract version)."""


def _versions(table: ContractVersions) -> dict[str, Any]:
    return {
        "contract": table.contract,
        "current": table.current,
        "supported": sorted(table.supported),
    }


def _owner(base: type, name: str) -> str:
    for owner in base.__mro__:
        if name in vars(owner):
            return f"{owner.__module__}.{owner.__qualname__}"
    return f"{base.__module__}.{base.__qualname__}"


def _methods(spec: RuntimeSpec) -> list[dict[str, Any]]:
    base = spec.platform_base
    operations = {op.name: op for op in spec.operations}
    version = CONTRACT_VERSIONS[f"{spec.name}-platform"].current
    rows: list[dict[str, Any]] = []
    for name in sorted({n for n in dir(base) if not n.startswith("_")} | set(operations)):
        member = inspect.getattr_static(base, name)
        function = member.__func__ if isinstance(member, classmethod | staticmethod) else member
        op = operations.get(name)
        rows.append(
            {
                "name": name,
                "owner": _owner(base, name),
                "signature": format_signature(function) if inspect.isfunction(function) else None,
                "status": op.status.value if op is not None else None,
                "default": op.default if op is not None else None,
                "serve": (op.serve or None) if op is not None else None,
                "version": version,
            }
        )
    return rows


def contract_manifest() -> dict[str, Any]:
    """The contract of this release, as the documented JSON object."""
    return {
        "manifest_version": MANIFEST_VERSION,
        "api_versions": {key: _versions(table) for key, table in sorted(CONTRACT_VERSIONS.items())},
        "platforms": {
            spec.name: {
                "base": spec.base_path,
                "api_version": _versions(CONTRACT_VERSIONS[f"{spec.name}-platform"]),
                "methods": _methods(spec),
            }
            for spec in (SRT, DIFFUSION)
        },
        "hook_targets": [
            {
                "path": target.path,
                "runtime": target.runtime,
                "signature": target.signature,
                "api_version": target.api_version,
                "supported": sorted(target.versions.supported),
                "use": target.use,
            }
            for target in HOOK_TARGETS.values()
        ],
        "entry_point_groups": list(constants.ALL_ENTRY_POINT_GROUPS),
        "environment_variables": {
            name: getattr(constants, name) for name in constants.__all__ if name.startswith("ENV_")
        },
    }
