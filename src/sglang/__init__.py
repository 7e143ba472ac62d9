"""SGLang's plugin system: typed contracts, one engine, a conformance suite.

Importing :mod:`sglang` is cheap: it imports neither torch nor any plugin.
The pillars live in subpackages: :mod:`sglang.sdk` (the contract that
plugins are checked against), :mod:`sglang.runtime` (the engine) and the
documented import paths such as :mod:`sglang.srt.platforms`.
"""

from sglang._version import __version__

__all__ = ["__version__"]
