"""The HTTP server child's target: start the generator, serve, stop on SIGTERM.

Imported only after the child registered its plugins and applied their
hooks (see :mod:`~sglang.multimodal_gen.runtime.managers.worker_bootstrap`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.multimodal_gen.runtime.entrypoints.diff_generator import DiffGenerator
from sglang.multimodal_gen.runtime.entrypoints.http_server import build_app
from sglang.runtime.http import serve, stop_on_signals

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.server_args import ServerArgs
    from sglang.runtime.bootstrap import Worker

__all__ = ["run_http_server"]


def run_http_server(server_args: ServerArgs, worker: Worker) -> None:
    """Start the scheduler workers, report ready, serve until SIGINT or SIGTERM.

    The workers are stopped on every way out, a signal while they are
    still starting included.
    """
    with stop_on_signals(), DiffGenerator(server_args) as generator:
        app = build_app(generator, server_args.api_key)
        worker.ready({"host": server_args.host, "port": server_args.port})
        serve(app, host=server_args.host, port=server_args.port, log_level=server_args.log_level)
