"""The ``sglang`` console script.

``sglang --version``, ``sglang --help``, ``sglang plugins`` and
``sglang serve [--model-type NAME] --help`` work without importing torch;
``sglang`` alone prints its usage to stderr and exits 2.
Subcommands: ``serve`` (:mod:`sglang.cli.serve`; every argument after
``serve`` is the serve command's, so it is dispatched before the top-level
parser runs) and ``plugins`` (:mod:`sglang.cli.plugins`).
"""

from __future__ import annotations

import sys

from sglang._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["build_parser", "main"]

_VERSION_TEXT = f"sglang {__version__}"


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="sglang",
        description=(
            "SGLang command line. Plugins are discovered through Python entry points; "
            "see the plugin guide for SGLANG_PLATFORM, SGLANG_PLUGINS and friends."
        ),
    )
    parser.add_argument("--version", action="version", version=_VERSION_TEXT)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.add_parser(
        "serve",
        add_help=False,
        help="serve a model: sglang serve MODEL_PATH [--model-type NAME] [OPTIONS]",
    )
    from sglang.cli import plugins

    plugins.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``); return the exit code.

    Without *argv* (as the console script calls it) ``serve`` ends the
    process once the backend returned and its children are gone
    (:func:`~sglang.runtime.process_exit.exit_now`), instead of waiting a
    second or more for the interpreter to free torch.
    """
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens == ["--version"]:  # argparse's own output, without importing argparse
        print(_VERSION_TEXT)
        return 0
    if tokens in (["plugins"], ["plugins", "--json"]):  # the listing, without argparse
        from sglang.cli import plugins

        return plugins.print_listing(as_json=len(tokens) == 2)
    if tokens[:1] == ["serve"]:
        from sglang.cli.serve import serve

        code = serve(tokens[1:])
        if argv is None:  # the program itself: a server that ran leaves at once
            from sglang.runtime.process_exit import exit_now

            exit_now(code)
        return code
    parser = build_parser()
    args = parser.parse_args(tokens)
    if args.command is None:  # a command is required, as argparse's usage errors say
        parser.print_help(sys.stderr)
        return 2
    if args.command == "plugins":
        from sglang.cli import plugins

        return plugins.run(args)
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover - argparse refuses first


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
