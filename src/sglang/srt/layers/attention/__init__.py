"""Attention backends, chosen by name from a registry.

The runtime looks up ``--attention-backend`` (else
``current_platform.get_default_attention_backend()``) with
:func:`get_attention_backend_cls`. ``torch_native`` is built in; a platform
registers its own at import time, as a class or a lazy ``"module:Class"``
path (the registry imports no torch)::

    from sglang.srt.layers.attention import register_attention_backend

    register_attention_backend("my_backend", "my_pkg.attention:MyBackend")
"""

from sglang.srt.layers.attention.registry import (
    UnknownAttentionBackendError,
    attention_backend_names,
    get_attention_backend_cls,
    register_attention_backend,
)

__all__ = [
    "UnknownAttentionBackendError",
    "attention_backend_names",
    "get_attention_backend_cls",
    "register_attention_backend",
]
