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

    Raises:
        sglang.cli.serve.ServeError: The start-up checks failed (a bad
            argument, model path or address): ``sglang serve`` prints the
            one-line message; the traceback is logged with ``--log-level debug``.
    """
    from sglang.cli.serve import ServeError
    from sglang.srt.entrypoints.startup import StartupError
    from sglang.srt.server_args import prepare_server_args

    server_args = prepare_server_args(list(request.argv))
    launch_server = import_required(
        "sglang.srt.entrypoints.http_server", "launch_server", "the llm serve backend", _EXTRA_HINT
    )
    try:
        launch_server(server_args)
    except StartupError as exc:
        import logging

        logging.getLogger(__name__).debug("the server did not start", exc_info=True)
        raise ServeError(str(exc), exit_code=1) from exc


def create_backend() -> ServeBackend:
    """The ``llm`` backend's factory (argument-less, as the registry calls it)."""
    return ServeBackend(api_version=1, run=run)
