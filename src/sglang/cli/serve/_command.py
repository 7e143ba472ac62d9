"""``sglang serve``: normalise the arguments, choose a backend, run it, clean up.

:func:`serve` is the subcommand; :func:`run_backend` runs a backend the
caller already has (a runtime's own ``my-runtime serve`` alias) with the
same argument rules, checks and process cleanup.
"""

from __future__ import annotations

import contextlib
import sys

from sglang.cli.serve._argv import AUTO, NormalizedArgv, normalize_argv
from sglang.cli.serve._errors import ServeError, configure_logging
from sglang.cli.serve._registry import read_registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from sglang.sdk.serve import ServeBackend

# The serve help reads metadata only: what running a backend needs
# (sglang.sdk.serve with its dataclasses, psutil, the routing) is imported
# once a backend is selected.

__all__ = ["run_backend", "serve"]

_SIGNAL_BASE = 128


def _check_model_path(label: str, backend: ServeBackend, args: NormalizedArgv) -> None:
    if backend.requires_model_path and args.model_path is None and not args.help:
        raise ServeError(
            f"serve backend {label} needs a model path: pass it first "
            f"(sglang serve MODEL_PATH ...) or as --model-path PATH. A config-only runtime "
            f"declares ServeBackend(..., requires_model_path=False) so that it runs without one"
        )


def _load_plugins() -> None:
    """SRT's plugin activation, before the backend prepares its server arguments."""
    from sglang.srt.plugins import load_plugins

    try:
        load_plugins()
    except Exception as exc:
        raise ServeError(f"loading plugins failed: {exc}", exit_code=1) from exc


def _exit_code(code: object) -> int:
    """The exit status a ``SystemExit(code)`` stands for (its message is printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _run(label: str, backend: ServeBackend, args: NormalizedArgv) -> int:
    """Run *backend* on *args* inside the owned process tree; return the exit code."""
    from sglang.cli.serve._cleanup import Terminated, owned_process_tree
    from sglang.runtime.optional import MissingComponentError
    from sglang.sdk.serve import ServeRequest

    _check_model_path(label, backend, args)
    configure_logging()
    _load_plugins()
    request = ServeRequest(argv=args.argv, model_path=args.model_path)
    # a help screen starts nothing (conformance SRV-02), so it needs no process tree
    tree = contextlib.nullcontext() if args.help else owned_process_tree()
    try:
        with tree:
            backend.run(request)
    except SystemExit as exc:  # argparse's --help (0) and usage errors (2)
        return _exit_code(exc.code)
    except KeyboardInterrupt:
        print(f"sglang serve: {label} interrupted", file=sys.stderr)
        return _SIGNAL_BASE + 2
    except Terminated as exc:
        print(f"sglang serve: {label} terminated by signal {exc.signum}", file=sys.stderr)
        return _SIGNAL_BASE + exc.signum
    except ServeError:
        raise
    except MissingComponentError as exc:
        print(f"sglang serve: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        import traceback

        traceback.print_exc()
        print(
            f"sglang serve: error: serve backend {label} failed: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 1
    return 0


def _report(exc: ServeError) -> int:
    print(f"sglang serve: error: {exc}", file=sys.stderr)
    return exc.exit_code


def serve(argv: Sequence[str]) -> int:
    """Run ``sglang serve`` with *argv* (after ``serve``); return the exit code.

    Errors the operator can fix are one line on stderr, never a traceback.
    """
    try:
        args = normalize_argv(argv)
        registry = read_registry()
        if args.help and args.model_type == AUTO:
            from sglang.cli.serve._help import format_help

            print(format_help(registry))
            return 0
        from sglang.cli.serve._routing import select_backend
        from sglang.sdk.serve import ServeRequest

        request = ServeRequest(argv=args.argv, model_path=args.model_path)
        loaded = select_backend(registry, args.model_type, request)
        return _run(loaded.label, loaded.backend, args)
    except ServeError as exc:
        return _report(exc)


def run_backend(backend: ServeBackend, argv: Sequence[str], *, name: str) -> int:
    """Run *backend* as ``sglang serve --model-type NAME`` would; return the exit code.

    For a runtime's own command (``my-runtime serve ...``): the same argument
    normalisation, model-path check, plugin loading and process cleanup,
    without reading the registry. *name* labels messages.
    """
    try:
        return _run(repr(name), backend, normalize_argv(argv))
    except ServeError as exc:
        return _report(exc)
