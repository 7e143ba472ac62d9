"""``sglang serve --help``: the usage, the rules, the installed backends, the llm options.

The llm backend is the fallback, so its options (with their defaults, from
:func:`sglang.srt.entrypoints.serve_backend.options_summary`) end the
text; reading them imports the server-argument dataclass, never torch.
"""

from __future__ import annotations

from sglang.cli.serve._registry import ServeBackendRegistry
from sglang.cli.serve._table import BUILTIN_BACKENDS, FALLBACK_BACKEND
from sglang.sdk.constants import SERVE_BACKENDS_GROUP

__all__ = ["format_help"]

_USAGE = """\
usage: sglang serve [MODEL_PATH] [--model-type NAME] [BACKEND_OPTIONS ...]

Serve a model with the backend that --model-type selects. Every option but
--model-type belongs to the backend; a positional MODEL_PATH (a Hugging Face
ID or a local directory) is passed on as --model-path MODEL_PATH, and nothing
after -- is touched.

options:
  -h, --help         show this message; with --model-type NAME, NAME's options
  --model-type NAME  the serve backend (default: auto)
"""


def format_help(registry: ServeBackendRegistry) -> str:
    """The text of ``sglang serve --help``, from metadata only (imports no backend)."""
    rows = [("auto", f"ask each backend's detector; no match runs {FALLBACK_BACKEND}")]
    for record in registry.records():
        where = "in-tree" if record.name in BUILTIN_BACKENDS else record.value
        rows.append((record.name, f"{record.dist} ({where})"))
    width = max(len(name) for name, _ in rows) + 2
    lines = [_USAGE, f"serve backends ({SERVE_BACKENDS_GROUP} entry points):"]
    lines += [f"  {name.ljust(width)}{text}" for name, text in rows]
    if registry.rejections:
        lines.append("\nunusable registrations:")
        lines += [f"  {rejection.message()}" for rejection in registry.rejections]
    from sglang.srt.entrypoints.serve_backend import options_summary

    lines.append(f"\n{FALLBACK_BACKEND} backend options and defaults (-: decided at start):")
    lines.append(options_summary())
    lines.append("\nsglang serve --model-type NAME --help explains a backend's options.")
    return "\n".join(lines)
