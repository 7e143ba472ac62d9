"""The attention backend enum, the SDPA backend and the platform-driven selector."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

import torch

from sglang.sdk.device import DeviceCapability

__all__ = ["AttentionBackend", "AttentionBackendEnum", "AttentionSelection", "select_attn_backend"]


class AttentionBackend(Protocol):
    """What the transformer calls: ``forward(q, k, v)`` over ``[batch, seq, heads, head_dim]``."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Attend *q* over *k*/*v*; the result has *q*'s shape."""
        ...


class TorchSDPABackend:
    """``torch.nn.functional.scaled_dot_product_attention`` (every device)."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Attend with SDPA (heads moved to dimension 1 and back)."""
        out = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        )
        return out.transpose(1, 2)


class AttentionBackendEnum(enum.Enum):
    """The built-in attention backends; values are their ``"pkg.mod:Class"`` paths."""

    TORCH_SDPA = f"{__name__}:TorchSDPABackend"


@dataclass(frozen=True)
class AttentionSelection:
    """The outcome of :func:`select_attn_backend`.

    Attributes:
        cls_str: What the platform returned.
        path: The ``"pkg.mod:Class"`` of the backend used.
        capability: The device capability the platform reported.
        backend: The backend instance.
    """

    cls_str: str
    path: str
    capability: DeviceCapability | None
    backend: AttentionBackend


def _enum_member(name: str) -> AttentionBackendEnum | None:
    return AttentionBackendEnum.__members__.get(name.strip().upper())


def select_attn_backend(selected: str | None, head_size: int) -> AttentionSelection:
    """Choose the attention backend through the current platform.

    Args:
        selected: An explicit :class:`AttentionBackendEnum` name, or ``None``.
        head_size: The attention head size.

    Raises:
        ValueError: *selected* is not an :class:`AttentionBackendEnum` name.
        TypeError: The platform's answer names no backend class.
    """
    from sglang.multimodal_gen.runtime.platforms import current_platform
    from sglang.runtime.resolver import resolve

    member = None
    if selected is not None:
        member = _enum_member(selected)
        if member is None:
            names = ", ".join(AttentionBackendEnum.__members__)
            raise ValueError(
                f"--attention-backend {selected!r} is not an AttentionBackendEnum name ({names}); "
                f"a custom backend is chosen by the platform's get_attn_backend_cls_str()"
            )
    capability = current_platform.get_device_capability()
    cls_str = current_platform.get_attn_backend_cls_str(
        member.name if member is not None else None, head_size
    )
    if not isinstance(cls_str, str) or not cls_str:
        raise TypeError(f"get_attn_backend_cls_str() returned {cls_str!r}, not a class path")
    named = _enum_member(cls_str)
    path = named.value if named is not None else cls_str
    cls = resolve(path)
    if not isinstance(cls, type):
        raise TypeError(f"the attention backend {path} is a {type(cls).__name__}, not a class")
    backend: AttentionBackend = cls()
    return AttentionSelection(cls_str, path, capability, backend)
