"""``sglang serve``: serve-backend routing, argument normalisation and process cleanup.

The subcommand is :func:`serve`; a runtime's own compatibility command
calls :func:`run_backend`. The registry (:func:`read_registry`) reads the
``sglang.serve_backends`` entry points from the process's one metadata scan
and imports nothing until a backend is selected. The backend API itself
(``ServeBackend``, ``ServeRequest``, ``ServeBackendDetection``) is
:mod:`sglang.cli.serve_backends`. Every name loads on first access, so that
``sglang serve --help`` pays only for what it uses.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.cli.serve._argv import AUTO, NormalizedArgv, normalize_argv
    from sglang.cli.serve._cleanup import GRACE_SECONDS, Terminated, terminate_tree
    from sglang.cli.serve._command import run_backend, serve
    from sglang.cli.serve._errors import ServeError
    from sglang.cli.serve._registry import (
        LoadedBackend,
        Rejection,
        ServeBackendRegistry,
        read_registry,
    )
    from sglang.cli.serve._routing import select_backend
    from sglang.cli.serve._table import BUILTIN_BACKENDS, FALLBACK_BACKEND, RESERVED_NAMES

__all__ = [
    "AUTO",
    "BUILTIN_BACKENDS",
    "FALLBACK_BACKEND",
    "GRACE_SECONDS",
    "RESERVED_NAMES",
    "LoadedBackend",
    "NormalizedArgv",
    "Rejection",
    "ServeBackendRegistry",
    "ServeError",
    "Terminated",
    "normalize_argv",
    "read_registry",
    "run_backend",
    "select_backend",
    "serve",
    "terminate_tree",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.cli.serve._argv": ("AUTO", "NormalizedArgv", "normalize_argv"),
        "sglang.cli.serve._cleanup": ("GRACE_SECONDS", "Terminated", "terminate_tree"),
        "sglang.cli.serve._command": ("run_backend", "serve"),
        "sglang.cli.serve._errors": ("ServeError",),
        "sglang.cli.serve._registry": (
            "LoadedBackend",
            "Rejection",
            "ServeBackendRegistry",
            "read_registry",
        ),
        "sglang.cli.serve._routing": ("select_backend",),
        "sglang.cli.serve._table": ("BUILTIN_BACKENDS", "FALLBACK_BACKEND", "RESERVED_NAMES"),
    },
)
