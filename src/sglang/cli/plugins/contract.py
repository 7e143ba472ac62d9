"""``sglang plugins contract``: print the contract manifest of this release.

``--json`` prints :func:`sglang.runtime.checks.manifest.contract_manifest`
as one object (``manifest_version``, ``api_versions``, ``platforms`` with
each runtime's ``base``, ``api_version`` and ``methods``, ``hook_targets``,
``entry_point_groups``, ``environment_variables``); without it, the same as
text. Nothing is imported beyond the sdk and the engine's tables.
"""

from __future__ import annotations

from typing import Any

__all__ = ["print_contract", "render_contract"]


def _versions(table: dict[str, Any]) -> str:
    supported = ", ".join(str(v) for v in table["supported"])
    return f"{table['contract']}: version {table['current']} (accepted: {supported})"


def render_contract(manifest: dict[str, Any]) -> str:
    """The manifest as text, one section per part."""
    lines = ["contract versions:"]
    lines += [f"  {key}: {_versions(table)}" for key, table in manifest["api_versions"].items()]
    for runtime, platform in manifest["platforms"].items():
        lines.append(f"{runtime} platform contract ({platform['base']}):")
        for method in platform["methods"]:
            status = method["status"] or "-"
            serve = f"; serve: {method['serve']}" if method["serve"] else ""
            signature = method["signature"] or " (attribute)"
            lines.append(
                f"  {method['name']}{signature}  [{status}; v{method['version']}{serve}]  "
                f"{method['owner']}"
            )
    lines.append("hook targets:")
    for target in manifest["hook_targets"]:
        lines.append(
            f"  {target['path']}{target['signature']}  [{target['runtime']}; "
            f"v{target['api_version']}]  {target['use']}"
        )
    lines.append("entry-point groups: " + ", ".join(manifest["entry_point_groups"]))
    lines.append("environment variables: " + ", ".join(manifest["environment_variables"].values()))
    return "\n".join(lines)


def print_contract(*, as_json: bool = False) -> int:
    """Print the manifest (as JSON with *as_json*); return the exit code (0)."""
    from sglang.runtime.checks.manifest import contract_manifest

    manifest = contract_manifest()
    if as_json:
        import json

        print(json.dumps(manifest, indent=2))
    else:
        print(render_contract(manifest))
    return 0
