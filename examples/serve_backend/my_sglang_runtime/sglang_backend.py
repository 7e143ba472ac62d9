"""The serve-backend factories of ``my_runtime``, registered as entry points.

``my_runtime`` needs a model path and has a detector, so ``sglang serve
MODEL`` picks it for a directory holding ``my_runtime.json``.
``my_runtime_config`` runs from ``--config FILE`` alone
(``requires_model_path=False``) and has no detector, so only
``--model-type my_runtime_config`` selects it. Both share :func:`run`.
Importing this module starts nothing and imports no accelerator library.
"""

from __future__ import annotations

import argparse
import os

from my_sglang_runtime import CONFIG_FILE
from sglang.cli.serve_backends import ServeBackend, ServeBackendDetection, ServeRequest

__all__ = ["build_parser", "create_backend", "create_config_backend", "detect", "run"]


def detect(request: ServeRequest) -> ServeBackendDetection:
    """MATCH a directory holding ``my_runtime.json``; UNKNOWN without a model path."""
    if request.model_path is None:
        return ServeBackendDetection.UNKNOWN
    if os.path.isfile(os.path.join(request.model_path, CONFIG_FILE)):
        return ServeBackendDetection.MATCH
    return ServeBackendDetection.NO_MATCH


def build_parser() -> argparse.ArgumentParser:
    """The runtime's own options; ``--help`` prints them and starts nothing."""
    parser = argparse.ArgumentParser(
        prog="sglang serve", description="Serve a model with my_runtime."
    )
    parser.add_argument("--model-path", help="model directory (holds my_runtime.json)")
    parser.add_argument("--config", help="a JSON configuration file (config-only runs)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes to start")
    parser.add_argument(
        "--serve-seconds", type=float, default=None, help="stop after this long (default: never)"
    )
    parser.add_argument("--ready-file", help="written once every worker has started")
    return parser


def run(request: ServeRequest) -> None:
    """Parse *request*'s arguments and serve, blocking for the server's lifetime."""
    parser = build_parser()
    args, remaining = parser.parse_known_args(request.argv)
    if args.model_path is None and args.config is None:
        parser.error("give a model path or --config FILE")
    from my_sglang_runtime.runtime import launch_runtime

    launch_runtime(args, remaining, request)


def create_backend() -> ServeBackend:
    """The ``my_runtime`` backend: needs a model path, auto-detectable."""
    return ServeBackend(api_version=1, run=run, detect=detect)


def create_config_backend() -> ServeBackend:
    """The ``my_runtime_config`` backend: config-only, explicit selection only."""
    return ServeBackend(api_version=1, run=run, requires_model_path=False)
