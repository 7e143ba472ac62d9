"""The in-tree ``llm`` serve backend: the reference SRT runtime over HTTP.

``sglang serve MODEL_PATH`` runs it when no other backend's detector
claims the model (and ``--model-type llm`` selects it by name). It has no
detector: it is the fallback. Importing this module, and ``--help``,
import neither torch nor the runtime; :func:`options_summary` is the
compact list of its options that ``sglang serve --help`` ends with.
"""

from __future__ import annotations

from sglang.runtime.optional import import_required
from sglang.sdk.serve import ServeBackend, ServeRequest

__all__ = ["create_backend", "options_summary", "run"]

_EXTRA_HINT = "install the serving extra: pip install 'sglang[all]'"


def run(request: ServeRequest) -> None:
    """Parse the SRT server arguments of *request* and serve until shut down.

    ``--help`` prints the flags of :func:`~sglang.srt.server_args.prepare_server_args`
    and exits (``SystemExit(0)``) before anything starts.

    Raises:
        SystemExit: The start-up checks failed (a bad argument, model path
            or address): ``sglang serve`` prints its one-line message and
            exits 1; the traceback is logged with ``--log-level debug``.
    """
    from sglang.srt.entrypoints.startup import command_line, preflight
    from sglang.srt.server_args import prepare_server_args

    server_args = prepare_server_args(list(request.argv))
    with command_line("sglang serve", server_args.log_level):  # the CLI cleans up, then leaves
        sock = preflight(server_args)  # before the HTTP stack is imported: fail fast
        launch_server = import_required(
            "sglang.srt.entrypoints.http_server",
            "launch_server",
            "the llm serve backend",
            _EXTRA_HINT,
        )
        launch_server(server_args, sock=sock)


def options_summary(width: int = 80) -> str:
    """The backend's options with their defaults, in columns: ``--tp-size 1  --port 30000 ...``.

    The columns fit nine options in ten; a longer one spans two.

    A switch (off by default) stands alone; ``-`` marks an option decided at
    start when not given (by the platform, the model or the runtime). The
    model path, which the usage line shows, is left out.
    """
    import dataclasses

    from sglang.srt.server_args import ServerArgs

    entries = []
    for item in dataclasses.fields(ServerArgs):
        flag = "--" + item.name.replace("_", "-")
        default = item.default
        if default == "":
            continue
        entries.append(
            flag if default is False else f"{flag} {'-' if default is None else default}"
        )
    column = sorted(len(entry) for entry in entries)[len(entries) * 9 // 10] + 2
    lines: list[str] = []
    line = ""
    for entry in entries:  # columns; an entry wider than one takes as many as it needs
        cell = entry.ljust(-(-(len(entry) + 2) // column) * column)
        if line and len("  " + line + entry) > width:
            lines.append(line)
            line = ""
        line += cell
    lines.append(line)
    return "\n".join(("  " + text).rstrip() for text in lines)


def create_backend() -> ServeBackend:
    """The ``llm`` backend's factory (argument-less, as the registry calls it)."""
    return ServeBackend(api_version=1, run=run)
