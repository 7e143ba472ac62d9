"""A small text encoder: byte tokens, learned positions, one MLP block, RMSNorm."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from sglang.multimodal_gen.runtime.layers.activation import GELU
from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm

__all__ = ["TextEncoder", "tokenize"]

PAD = 256
"""The padding token (bytes are 0-255)."""


def tokenize(prompts: Sequence[str], max_length: int) -> torch.Tensor:
    """UTF-8 bytes of each prompt, truncated and padded to *max_length*: ``[batch, length]``."""
    rows = []
    for prompt in prompts:
        ids = list(prompt.encode("utf-8"))[:max_length]
        rows.append(ids + [PAD] * (max_length - len(ids)))
    return torch.tensor(rows, dtype=torch.long)


class TextEncoder(torch.nn.Module):
    """Encode byte tokens to ``[batch, max_length, hidden_size]`` embeddings.

    Args:
        config: ``hidden_size``, ``max_length``.
    """

    def __init__(self, config: Mapping[str, object]) -> None:
        super().__init__()
        hidden = int(config["hidden_size"])  # type: ignore[call-overload]
        self.max_length = int(config["max_length"])  # type: ignore[call-overload]
        self.embed = torch.nn.Embedding(PAD + 1, hidden)
        self.position = torch.nn.Parameter(torch.randn(self.max_length, hidden) * 0.02)
        self.norm = RMSNorm(hidden)
        self.fc1 = torch.nn.Linear(hidden, 2 * hidden)
        self.act = GELU()
        self.fc2 = torch.nn.Linear(2 * hidden, hidden)
        self.norm_out = RMSNorm(hidden)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Embed *ids* (``[batch, max_length]``)."""
        h = self.embed(ids) + self.position[: ids.shape[1]]
        h = h + self.fc2(self.act(self.fc1(self.norm(h))))
        out: torch.Tensor = self.norm_out(h)
        return out
