"""The in-tree ``llm`` serve backend: the reference SRT runtime over HTTP.

``sglang serve MODEL_PATH`` runs it when no other backend's detector
claims the model (and ``--model-type llm`` selects it by name). It has no
detector: it is the fallback. Importing this module, and ``--help``,
import neither torch nor the runtime.
"""

from __future__ import annotations

from sglang.runtime.optional import import_required
from sglang.sdk.serve import ServeBackend, ServeRequest

__all__ = ["create_backend", "run"]

_EXTRA_HINT = "install the serving extra: pip install 'sglang[all]'"


def run(request: ServeRequest) -> None:
    """Parse the SRT server arguments of *request* and serve until shut down.

    ``--help`` prints the flags of :func:`~sglang.srt.server_args.prepare_server_args`
    and exits (``SystemExit(0)``) before anything starts.
    """
    from sglang.srt.server_args import prepare_server_args

    server_args = prepare_server_args(list(request.argv))
    launch_server = import_required(
        "sglang.srt.entrypoints.http_server", "launch_server", "the llm serve backend", _EXTRA_HINT
    )
    launch_server(server_args)


def create_backend() -> ServeBackend:
    """The ``llm`` backend's factory (argument-less, as the registry calls it)."""
    return ServeBackend(api_version=1, run=run)
