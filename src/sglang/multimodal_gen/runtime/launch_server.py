"""The HTTP server child's target: start the generator, serve, stop on SIGTERM.

Imported only after the child registered its plugins and applied their
hooks (see :mod:`~sglang.multimodal_gen.runtime.managers.worker_bootstrap`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import uvicorn

from sglang.multimodal_gen.runtime.entrypoints.diff_generator import DiffGenerator
from sglang.multimodal_gen.runtime.entrypoints.http_server import build_app

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.server_args import ServerArgs
    from sglang.runtime.bootstrap import Worker

__all__ = ["run_http_server"]


class _Server(uvicorn.Server):
    """uvicorn, minus re-raising the stop signal: the workers are stopped first."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            captured = getattr(self, "_captured_signals", None)
            if isinstance(captured, list):
                captured.clear()  # a signal is how this server is meant to stop


def run_http_server(server_args: ServerArgs, worker: Worker) -> None:
    """Start the scheduler workers, report ready, serve until SIGINT or SIGTERM."""
    with DiffGenerator(server_args) as generator:
        app = build_app(generator, server_args.api_key)
        config = uvicorn.Config(
            app, host=server_args.host, port=server_args.port, log_level=server_args.log_level
        )
        server = _Server(config)
        worker.ready({"host": server_args.host, "port": server_args.port})
        server.run()
