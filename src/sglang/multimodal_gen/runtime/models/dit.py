"""A patchified diffusion transformer built from the custom ops, sequence-parallel (Ulysses).

Each rank holds a contiguous shard of the image tokens. Self-attention
exchanges shards for heads with ``all_to_all_4D`` (every rank attends over
the whole sequence for its share of the heads) and back; cross-attention to
the text is local. The output shards are gathered in rank order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch

from sglang.multimodal_gen.runtime.distributed import all_gather_seq, all_to_all_4D, get_sp_group
from sglang.multimodal_gen.runtime.layers.activation import GELU
from sglang.multimodal_gen.runtime.layers.attention import AttentionBackend
from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm

__all__ = ["DiffusionTransformer", "sincos"]


def sincos(values: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal features ``[len(values), dim]`` of a 1-D tensor (timesteps, positions)."""
    half = dim // 2
    freqs = torch.exp(
        -math.log(10000.0) * torch.arange(half, dtype=torch.float32, device=values.device) / half
    )
    angles = values.float()[:, None] * freqs[None, :]
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)


def _grid_positions(rows: int, cols: int, dim: int) -> torch.Tensor:
    r = torch.arange(rows).repeat_interleave(cols)
    c = torch.arange(cols).repeat(rows)
    return torch.cat([sincos(r, dim // 2), sincos(c, dim // 2)], dim=-1)


class _Attention(torch.nn.Module):
    def __init__(self, hidden: int, heads: int, context: int, backend: AttentionBackend) -> None:
        super().__init__()
        self.heads = heads
        self.q = torch.nn.Linear(hidden, hidden)
        self.kv = torch.nn.Linear(context, 2 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)
        self.backend = backend

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(*x.shape[:-1], self.heads, -1)

    def forward(self, x: torch.Tensor, context: torch.Tensor, *, sharded: bool) -> torch.Tensor:
        q = self._split(self.q(x))
        k, v = (self._split(t) for t in self.kv(context).chunk(2, dim=-1))
        if sharded:  # [b, s/p, h, d] -> [b, s, h/p, d]
            q, k, v = (all_to_all_4D(t, scatter_dim=2, gather_dim=1) for t in (q, k, v))
        out = self.backend.forward(q, k, v)
        if sharded:
            out = all_to_all_4D(out, scatter_dim=1, gather_dim=2)
        result: torch.Tensor = self.out(out.flatten(-2))
        return result


class _Block(torch.nn.Module):
    def __init__(
        self, hidden: int, heads: int, text: int, mlp: int, backend: AttentionBackend
    ) -> None:
        super().__init__()
        self.norm1, self.norm2, self.norm3 = RMSNorm(hidden), RMSNorm(hidden), RMSNorm(hidden)
        self.self_attn = _Attention(hidden, heads, hidden, backend)
        self.cross_attn = _Attention(hidden, heads, text, backend)
        self.fc1 = torch.nn.Linear(hidden, mlp)
        self.act = GELU()
        self.fc2 = torch.nn.Linear(mlp, hidden)
        self.modulation = torch.nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor, text: torch.Tensor, temb: torch.Tensor) -> torch.Tensor:
        x = x + self.modulation(temb)[:, None, :]
        h = self.norm1(x)
        x = x + self.self_attn(h, h, sharded=True)
        x = x + self.cross_attn(self.norm2(x), text, sharded=False)
        result: torch.Tensor = x + self.fc2(self.act(self.fc1(self.norm3(x))))
        return result


class DiffusionTransformer(torch.nn.Module):
    """Predict the flow-matching velocity of ``[batch, in_channels, h, w]`` latents.

    Args:
        config: ``in_channels``, ``patch_size``, ``hidden_size``,
            ``num_attention_heads``, ``num_layers``, ``text_dim``, ``mlp_ratio``.
        backend: The attention backend every attention layer uses.
    """

    def __init__(self, config: Mapping[str, object], backend: AttentionBackend) -> None:
        super().__init__()

        def get(name: str) -> int:
            return int(str(config[name]))

        self.channels, self.patch, hidden = (
            get("in_channels"),
            get("patch_size"),
            get("hidden_size"),
        )
        self.heads = get("num_attention_heads")
        self.hidden = hidden
        patch_dim = self.channels * self.patch * self.patch
        self.patch_in = torch.nn.Linear(patch_dim, hidden)
        self.time_fc1 = torch.nn.Linear(hidden, hidden)
        self.time_fc2 = torch.nn.Linear(hidden, hidden)
        mlp = hidden * get("mlp_ratio")
        self.blocks = torch.nn.ModuleList(
            _Block(hidden, self.heads, get("text_dim"), mlp, backend)
            for _ in range(get("num_layers"))
        )
        self.norm_out = RMSNorm(hidden)
        self.patch_out = torch.nn.Linear(hidden, patch_dim)

    def _patchify(self, latents: torch.Tensor) -> torch.Tensor:
        b, c, h, w = latents.shape
        p = self.patch
        x = latents.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
        return x.reshape(b, (h // p) * (w // p), c * p * p)

    def _unpatchify(self, tokens: torch.Tensor, h: int, w: int) -> torch.Tensor:
        b, p, c = tokens.shape[0], self.patch, self.channels
        x = tokens.reshape(b, h // p, w // p, c, p, p).permute(0, 3, 1, 4, 2, 5)
        return x.reshape(b, c, h, w)

    def forward(
        self, latents: torch.Tensor, timestep: torch.Tensor, text: torch.Tensor
    ) -> torch.Tensor:
        """Return the velocity for *latents* at *timestep* (``[batch]``) given *text* embeddings."""
        group = get_sp_group()
        _, _, h, w = latents.shape
        tokens = self._patchify(latents)
        seq = tokens.shape[1]
        if seq % group.world_size or self.heads % group.world_size:
            raise ValueError(
                f"sequence parallelism over {group.world_size} ranks needs the token count "
                f"({seq}) and the heads ({self.heads}) to divide evenly; change the image size "
                f"or --sp-degree"
            )
        positions = _grid_positions(h // self.patch, w // self.patch, self.hidden)
        x = self.patch_in(tokens) + positions.to(tokens.device, tokens.dtype)
        shard = seq // group.world_size
        x = x[:, group.rank * shard : (group.rank + 1) * shard]
        temb = sincos(timestep, self.hidden).to(x.dtype)
        temb = self.time_fc2(torch.nn.functional.silu(self.time_fc1(temb)))
        for block in self.blocks:
            x = block(x, text.to(x.dtype), temb)
        out = self.patch_out(self.norm_out(x))
        return self._unpatchify(all_gather_seq(out, dim=1), h, w)
