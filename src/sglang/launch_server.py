"""``python -m sglang.launch_server --model-path DIR [flags]``: serve a model over HTTP.

Upstream SGLang's entry point: loads the SRT general plugins, parses the
flags of :class:`~sglang.srt.server_args.ServerArgs`, then blocks in
:func:`~sglang.srt.entrypoints.http_server.launch_server` until SIGINT or
SIGTERM. A failed start-up check (a bad argument, model path or address)
is one line on stderr and exit status 1 (the traceback is logged only with
``--log-level debug``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the model *argv* (default ``sys.argv[1:]``) names.

    Without *argv* (the program itself), the process ends as soon as the
    server stopped, without the interpreter's teardown.
    """
    from sglang.srt.plugins import load_plugins
    from sglang.srt.server_args import prepare_server_args

    load_plugins()
    server_args = prepare_server_args(sys.argv[1:] if argv is None else argv)
    from sglang.srt.entrypoints.startup import command_line, preflight

    with command_line("sglang.launch_server", server_args.log_level, leave=argv is None):
        sock = preflight(server_args)  # before the HTTP stack is imported: fail fast
        from sglang.srt.entrypoints.http_server import launch_server

        launch_server(server_args, sock=sock)


if __name__ == "__main__":
    main()
