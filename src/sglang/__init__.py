"""SGLang's plugin system: typed contracts, one engine, a conformance suite.

Importing :mod:`sglang` is cheap: it imports neither torch nor any plugin.
The pillars live in subpackages: :mod:`sglang.sdk` (the contract that
plugins are checked against), :mod:`sglang.runtime` (the engine) and the
documented import paths such as :mod:`sglang.srt.platforms`. ``sglang.Engine``
is the reference SRT runtime's offline engine
(:class:`sglang.srt.entrypoints.engine.Engine`), loaded on first access.
"""

from __future__ import annotations

from sglang._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.srt.entrypoints.engine import Engine

__all__ = ["Engine", "__version__"]


def __getattr__(name: str) -> object:
    if name == "Engine":
        from sglang.srt.entrypoints.engine import Engine

        return Engine
    raise AttributeError(f"module 'sglang' has no attribute {name!r}")
