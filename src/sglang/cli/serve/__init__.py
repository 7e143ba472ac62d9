"""``sglang serve``: serve-backend routing, argument normalisation and process cleanup.

The subcommand is :func:`serve`; a runtime's own compatibility command
calls :func:`run_backend`. The registry (:func:`read_registry`) reads the
``sglang.serve_backends`` entry points from the process's one metadata scan
and imports nothing until a backend is selected. The backend API itself
(``ServeBackend``, ``ServeRequest``, ``ServeBackendDetection``) is
:mod:`sglang.cli.serve_backends`.
"""

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
