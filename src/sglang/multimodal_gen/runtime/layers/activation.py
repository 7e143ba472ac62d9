"""``GELU``: the transformer's activation custom op."""

from __future__ import annotations

from typing import ClassVar

import torch

from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp

__all__ = ["GELU"]


class GELU(CustomOp):
    """The tanh approximation of GELU."""

    op_name: ClassVar[str] = "diffusion_gelu"

    def forward_native(self, x: torch.Tensor) -> torch.Tensor:
        """Apply GELU (tanh approximation)."""
        return torch.nn.functional.gelu(x, approximate="tanh")
