"""The ``torch_native`` backend's decode copies: :class:`DecodeKVCache`.

:mod:`.cache` keeps them, :mod:`.blocks` records what they hold, and
:mod:`.attention` does the tensor work of a step.
"""

from sglang.srt.layers.attention.decode.cache import DecodeKVCache

__all__ = ["DecodeKVCache"]
