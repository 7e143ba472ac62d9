"""``SiluAndMul``: the gated activation of Llama-style MLPs."""

from __future__ import annotations

import torch

from sglang.runtime.op_dispatch.custom_op import CustomOp

__all__ = ["SiluAndMul"]


class SiluAndMul(CustomOp):
    """``silu(x[..., :d]) * x[..., d:]`` for an input of width ``2 * d``."""

    op_name = "silu_and_mul"

    def forward_native(self, x: torch.Tensor) -> torch.Tensor:
        """Plain torch SiLU-and-mul."""
        d = x.shape[-1] // 2
        return torch.nn.functional.silu(x[..., :d]) * x[..., d:]
