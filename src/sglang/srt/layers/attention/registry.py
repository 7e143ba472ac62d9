"""The attention-backend registry: name -> class or lazy ``"module:Class"`` path."""

from __future__ import annotations

import threading
from typing import Any

from sglang.runtime.resolver import resolve
from sglang.sdk.srt_runtime import AttentionBackend

__all__ = [
    "UnknownAttentionBackendError",
    "attention_backend_names",
    "get_attention_backend_cls",
    "register_attention_backend",
]

_lock = threading.Lock()
_backends: dict[str, type[AttentionBackend] | str] = {
    "torch_native": "sglang.srt.layers.attention.torch_native_backend:TorchNativeAttnBackend",
}


class UnknownAttentionBackendError(ValueError):
    """No attention backend is registered under the requested name."""


def register_attention_backend(name: str, backend: type[AttentionBackend] | str) -> None:
    """Register *backend* (a class or a ``"module:Class"`` path) under *name*.

    A later registration under the same name replaces the earlier one.
    """
    if isinstance(backend, str) and ":" not in backend:
        raise ValueError(f"attention backend path {backend!r} must look like 'module:Class'")
    with _lock:
        _backends[name] = backend


def attention_backend_names() -> list[str]:
    """Return the registered backend names, sorted."""
    with _lock:
        return sorted(_backends)


def get_attention_backend_cls(name: str) -> type[AttentionBackend]:
    """Return the backend class registered under *name* (importing a lazy path now).

    Raises:
        UnknownAttentionBackendError: Nothing is registered under *name*; the
            message lists the registered names and the ``--attention-backend`` flag.
        ImportError: A lazy path does not import.
    """
    with _lock:
        entry = _backends.get(name)
    if entry is None:
        known = ", ".join(attention_backend_names())
        raise UnknownAttentionBackendError(
            f"unknown attention backend {name!r}; registered: {known}. Pass one of them "
            "with --attention-backend, or register yours with register_attention_backend()"
        )
    if not isinstance(entry, str):
        return entry
    found: Any = resolve(entry)
    if not isinstance(found, type):
        raise TypeError(f"attention backend {name!r} names {entry!r}, which is not a class")
    cls: type[AttentionBackend] = found
    with _lock:
        _backends[name] = cls
    return cls
