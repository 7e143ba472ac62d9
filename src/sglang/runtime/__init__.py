"""``sglang.runtime``: the engine behind both SGLang runtimes.

Entry-point discovery, platform selection, the activation gate, the hook
engine and plugin loading are written once here and instantiated per
runtime (SRT and diffusion) from data tables. The documented import paths
(``sglang.srt.platforms``, ``sglang.multimodal_gen.runtime.platforms``, ...)
expose these objects.

This face holds the foundation the subpackages build on: the runtime
tables (:mod:`~sglang.runtime.spec`), the entry-point scan
(:mod:`~sglang.runtime.discovery`), the activation gate
(:mod:`~sglang.runtime.gate`), object references
(:mod:`~sglang.runtime.resolver`), environment parsing
(:mod:`~sglang.runtime.environment`). Which plugin registered a hook
(:mod:`~sglang.runtime.plugin_source`) is part of the hook engine's face.
The subpackages have their own faces: :mod:`sglang.runtime.selection`,
:mod:`sglang.runtime.plugins`, :mod:`sglang.runtime.hooks` and
:mod:`sglang.runtime.builtin`. Every name loads on first access, so
importing this package costs nothing.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.discovery import (
        EntryPointIndex,
        EntryPointRecord,
        entry_point_index,
        normalize_dist_name,
        refresh,
        scan,
    )
    from sglang.runtime.environment import parse_allowlist, read_flag
    from sglang.runtime.gate import GateState, OnceGate
    from sglang.runtime.resolver import resolve
    from sglang.runtime.spec import DIFFUSION, SRT, BuiltinPlatform, PerRuntime, RuntimeSpec

__all__ = [
    "DIFFUSION",
    "SRT",
    "BuiltinPlatform",
    "EntryPointIndex",
    "EntryPointRecord",
    "GateState",
    "OnceGate",
    "PerRuntime",
    "RuntimeSpec",
    "entry_point_index",
    "normalize_dist_name",
    "parse_allowlist",
    "read_flag",
    "refresh",
    "resolve",
    "scan",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.runtime.discovery": (
            "EntryPointIndex",
            "EntryPointRecord",
            "entry_point_index",
            "normalize_dist_name",
            "refresh",
            "scan",
        ),
        "sglang.runtime.environment": ("parse_allowlist", "read_flag"),
        "sglang.runtime.gate": ("GateState", "OnceGate"),
        "sglang.runtime.resolver": ("resolve",),
        "sglang.runtime.spec": ("DIFFUSION", "SRT", "BuiltinPlatform", "PerRuntime", "RuntimeSpec"),
    },
)
