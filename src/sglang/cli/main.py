"""The ``sglang`` console script.

``sglang --version``, ``sglang --help`` and ``sglang plugins`` work without
importing torch. Subcommands: ``plugins`` (:mod:`sglang.cli.plugins`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sglang._version import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser."""
    parser = argparse.ArgumentParser(
        prog="sglang",
        description=(
            "SGLang command line. Plugins are discovered through Python entry points; "
            "see the plugin guide for SGLANG_PLATFORM, SGLANG_PLUGINS and friends."
        ),
    )
    parser.add_argument("--version", action="version", version=f"sglang {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    from sglang.cli import plugins

    plugins.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "plugins":
        from sglang.cli import plugins

        return plugins.run(args)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse refuses first


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
