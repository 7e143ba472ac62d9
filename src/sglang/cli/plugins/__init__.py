"""``sglang plugins``: what is installed, what selection made of it, and whether it fits.

* ``sglang plugins [--json]`` lists every entry point of every group the
  plugin system reads (platforms and general plugins of both runtimes,
  serve backends) with its distribution and version. It reads metadata
  only: nothing is imported.
* ``sglang plugins explain [--json]`` runs both runtimes' platform
  selection (activation callbacks are imported and called, as at startup)
  and shows which callbacks ran, what each returned, what was chosen and
  why, and which general plugins would load or be skipped and why.
* ``sglang plugins check [NAME ...] [--class MODULE:CLASS] [--json] [--strict]``
  judges installed plugins against the contract without selecting a
  platform or initialising a device (:mod:`sglang.cli.plugins.check`).
* ``sglang plugins contract [--json]`` prints the contract manifest
  (:mod:`sglang.cli.plugins.contract`).

The JSON of the listing is a list of objects with ``group``, ``name``,
``value``, ``distribution`` and ``version``. The JSON of ``explain`` is an
object with one key per runtime (``srt``, ``diffusion``), each holding
``selection`` (the fields of the selection report) and ``plugins`` (a list
of objects with ``name``, ``distribution``, ``version``, ``value``,
``decision``: ``load`` or ``skip``, and ``reason``).
"""

from __future__ import annotations

from sglang.sdk.constants import ALL_ENTRY_POINT_GROUPS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["add_parser", "explain", "listing", "print_listing", "run"]


def add_parser(subparsers: Any) -> None:
    """Add ``plugins`` and its actions (``explain``, ``check``, ``contract``)."""
    import argparse

    parser = subparsers.add_parser(
        "plugins",
        help="list installed plugins; 'explain', 'check' and 'contract' say more",
        description="List installed plugins (no action), or run an action.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (see the guide's schema)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    as_json = {"action": "store_true", "default": argparse.SUPPRESS, "help": "print JSON"}
    actions.add_parser("explain", help="run platform selection and explain it").add_argument(
        "--json", **as_json
    )
    check = actions.add_parser(
        "check",
        help="check installed plugins against the contract (no device is initialised)",
        description=(
            "Check installed plugins against the sglang.sdk contract: api_version, "
            "signatures, misspelt methods, Planned overrides, what a default sglang serve "
            "needs, hooks and their targets, serve-backend registrations. Exit 0 when clean, "
            "1 on errors (with --strict, on warnings too)."
        ),
    )
    check.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="entry-point or distribution names to check (default: every installed plugin)",
    )
    check.add_argument(
        "--class",
        dest="classes",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="also check this platform class (repeatable; alone: check only the classes)",
    )
    check.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    check.add_argument("--json", **as_json)
    actions.add_parser(
        "contract", help="print the contract manifest: methods, hook targets, versions"
    ).add_argument("--json", **as_json)


def listing() -> list[dict[str, str]]:
    """Every entry point of every plugin-system group, in discovery order (imports nothing)."""
    from sglang.runtime.discovery import entry_point_index

    index = entry_point_index()
    return [
        {
            "group": record.group,
            "name": record.name,
            "value": record.value,
            "distribution": record.dist_name,
            "version": record.dist_version,
        }
        for group in ALL_ENTRY_POINT_GROUPS
        for record in index.group(group)
    ]


def _plugin_decisions(runtime: str) -> list[dict[str, str]]:
    from sglang.runtime.discovery import entry_point_index
    from sglang.runtime.plugins import runtime_plugins
    from sglang.runtime.spec import DIFFUSION, SRT

    spec = SRT if runtime == "srt" else DIFFUSION
    policy = runtime_plugins(spec).policy()
    rows = []
    for record in entry_point_index().group(spec.plugins_group):
        if not policy.allows(record.name):
            decision, reason = "skip", f"not in {spec.plugins_env}"
        elif policy.excludes(record.dist_name):
            decision, reason = "skip", "its distribution provides a platform that was not selected"
        elif policy.requires(record.dist_name):
            decision, reason = "load", "part of the selected platform's distribution (required)"
        else:
            decision, reason = "load", "best-effort (a failure is skipped with a warning)"
        rows.append(
            {
                "name": record.name,
                "distribution": record.dist_name,
                "version": record.dist_version,
                "value": record.value,
                "decision": decision,
                "reason": reason,
            }
        )
    return rows


def explain() -> dict[str, dict[str, Any]]:
    """Both runtimes' selection reports and general-plugin decisions (runs selection)."""
    import dataclasses

    import sglang.multimodal_gen.runtime.platforms as diffusion_platforms
    import sglang.srt.platforms as srt_platforms

    result: dict[str, dict[str, Any]] = {}
    for runtime, module in (("srt", srt_platforms), ("diffusion", diffusion_platforms)):
        report = module.get_selection_report()
        data = dataclasses.asdict(report)
        data["mode"] = report.mode.value
        data["callbacks"] = [dict(c, status=c["status"].value) for c in data["callbacks"]]
        data.pop("first_stack")
        result[runtime] = {
            "selection": data,
            "text": report.format(),
            "plugins": _plugin_decisions(runtime) if report.ok else [],
        }
    return result


def run(args: argparse.Namespace) -> int:
    """Run the action (or print the listing); return its exit code.

    ``explain`` exits 1 when selection failed, ``check`` when it found an
    error (or, with ``--strict``, a warning).
    """
    if args.action == "check":
        from sglang.cli.plugins.check import run_check

        return run_check(args.names, classes=args.classes, as_json=args.json, strict=args.strict)
    if args.action == "contract":
        from sglang.cli.plugins.contract import print_contract

        return print_contract(as_json=args.json)
    if args.action == "explain":
        data = explain()
        if args.json:
            import json

            print(json.dumps(data))
        else:
            for runtime in data.values():
                print(runtime["text"])
                for row in runtime["plugins"]:
                    print(
                        f"  general plugin {row['name']} ({row['distribution']} "
                        f"{row['version']}): {row['decision']} - {row['reason']}"
                    )
        failed = [k for k, v in data.items() if v["selection"]["error"] is not None]
        return 1 if failed else 0
    return print_listing(as_json=args.json)


def print_listing(*, as_json: bool = False) -> int:
    """Print :func:`listing` (as JSON with *as_json*); return the exit code (0)."""
    rows = listing()
    if as_json:
        import json

        print(json.dumps(rows))
        return 0
    if not rows:
        print("no plugin installed")
        return 0
    for group in ALL_ENTRY_POINT_GROUPS:
        mine = [row for row in rows if row["group"] == group]
        if mine:
            print(f"{group}:")
            for row in mine:
                print(f"  {row['name']} = {row['value']}  ({row['distribution']} {row['version']})")
    return 0
