"""Rotary position embedding: the default frequencies and ``llama3`` scaling.

:func:`get_rope` builds the op from a :class:`~sglang.srt.configs.model_config.RopeConfig`;
the scaling types are a table (:data:`INV_FREQ_FNS`), not branches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

import torch

from sglang.runtime.op_dispatch.custom_op import CustomOp
from sglang.srt.configs.model_config import RopeConfig

__all__ = ["INV_FREQ_FNS", "RotaryEmbedding", "default_inv_freq", "get_rope", "llama3_inv_freq"]


def default_inv_freq(rope: RopeConfig, rotary_dim: int) -> torch.Tensor:
    """The standard inverse frequencies ``1 / theta ** (2i / d)``."""
    exponent = torch.arange(0, rotary_dim, 2, dtype=torch.int64).to(torch.float32) / rotary_dim
    return 1.0 / (rope.theta**exponent)


def llama3_inv_freq(rope: RopeConfig, rotary_dim: int) -> torch.Tensor:
    """Llama 3.1 frequencies: long wavelengths scaled down, a smooth band between."""
    inv_freq = default_inv_freq(rope, rotary_dim)
    factor = float(rope.scaling["factor"])
    low = float(rope.scaling.get("low_freq_factor", 1.0))
    high = float(rope.scaling.get("high_freq_factor", 4.0))
    old_len = float(rope.scaling["original_max_position_embeddings"])
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > old_len / low, inv_freq / factor, inv_freq)
    smooth = (old_len / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old_len / high) * ~(wavelen > old_len / low)
    return torch.where(medium, smoothed, scaled)


INV_FREQ_FNS: Mapping[str, Callable[[RopeConfig, int], torch.Tensor]] = MappingProxyType(
    {"default": default_inv_freq, "llama3": llama3_inv_freq}
)
"""Inverse-frequency functions by ``rope_type``."""


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class RotaryEmbedding(CustomOp):
    """Neox-style rotary embedding over the whole head (cos/sin cached per position).

    ``forward(positions, q, k)`` takes ``positions`` of shape ``(tokens,)``
    and ``q``/``k`` of shape ``(tokens, heads * head_dim)``; it returns the
    rotated pair.
    """

    op_name = "rotary_embedding"

    def __init__(self, head_dim: int, max_position: int, inv_freq: torch.Tensor) -> None:
        super().__init__()
        self.head_dim = head_dim
        t = torch.arange(max_position, dtype=torch.int64).to(torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos_cache: torch.Tensor
        self.sin_cache: torch.Tensor
        self.register_buffer("cos_cache", emb.cos(), persistent=False)
        self.register_buffer("sin_cache", emb.sin(), persistent=False)

    def forward_native(
        self, positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Plain torch rotary embedding."""
        cos = self.cos_cache[positions].unsqueeze(1)
        sin = self.sin_cache[positions].unsqueeze(1)

        def rotate(x: torch.Tensor) -> torch.Tensor:
            shaped = x.view(x.shape[0], -1, self.head_dim)
            out = shaped.float() * cos + _rotate_half(shaped.float()) * sin
            return out.to(x.dtype).view_as(x)

        return rotate(q), rotate(k)


def get_rope(head_dim: int, max_position: int, rope: RopeConfig) -> RotaryEmbedding:
    """Build the rotary op for *rope* (``ValueError`` for an unsupported ``rope_type``)."""
    try:
        inv_freq_fn = INV_FREQ_FNS[rope.rope_type]
    except KeyError:
        known = ", ".join(INV_FREQ_FNS)
        raise ValueError(f"unsupported rope_type {rope.rope_type!r}; supported: {known}") from None
    return RotaryEmbedding(head_dim, max_position, inv_freq_fn(rope, head_dim))
