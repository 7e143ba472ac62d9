"""``my-runtime serve ...``: the runtime's own command, a compatibility alias.

It calls the same backend function as ``sglang serve --model-type
my_runtime``, through :func:`sglang.cli.serve.run_backend`, so that the
arguments, the model-path check and the process cleanup are sglang's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from my_sglang_runtime.sglang_backend import create_backend
from sglang.cli.serve import run_backend

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``my-runtime`` with *argv* (default ``sys.argv[1:]``); return the exit code."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    if tokens[:1] == ["serve"]:
        return run_backend(create_backend(), tokens[1:], name="my_runtime")
    parser = argparse.ArgumentParser(prog="my-runtime", description="my_runtime's command.")
    parser.add_subparsers(dest="command", metavar="COMMAND").add_parser(
        "serve", add_help=False, help="serve a model (options: my-runtime serve --help)"
    )
    parser.parse_args(tokens)
    parser.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
