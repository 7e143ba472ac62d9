"""The in-tree serve backends and the names reserved for ``sglang serve``.

The in-tree backends are factories named by string, so reading this table
imports nothing: a factory's module is imported only when its backend is
selected (or asked for a detection under ``--model-type auto``).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["BUILTIN_BACKENDS", "FALLBACK_BACKEND", "RESERVED_NAMES"]

BUILTIN_BACKENDS = MappingProxyType(
    {
        "llm": "sglang.srt.entrypoints.serve_backend:create_backend",
        "diffusion": "sglang.multimodal_gen.runtime.entrypoints.serve_backend:create_backend",
    }
)
"""In-tree backend name -> its factory (``"module:attr"``)."""

FALLBACK_BACKEND = "llm"
"""What ``--model-type auto`` runs when no detector claims the request."""

RESERVED_NAMES = frozenset({"auto", *BUILTIN_BACKENDS})
"""Names no distribution may register under ``sglang.serve_backends``."""
