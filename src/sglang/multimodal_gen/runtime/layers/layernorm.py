"""``RMSNorm``: the pipeline's normalisation op (its native forward is a torch.library op)."""

from __future__ import annotations

from typing import ClassVar

import torch

from sglang.multimodal_gen.runtime.layers import torch_ops
from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp

__all__ = ["RMSNorm"]


class RMSNorm(CustomOp):
    """Root-mean-square normalisation with a learned scale.

    Args:
        hidden_size: The normalised (last) dimension.
        eps: Added to the mean square before the reciprocal square root.
    """

    op_name: ClassVar[str] = "diffusion_rms_norm"

    def __init__(self, hidden_size: int, eps: float = 1e-6) -> None:
        torch_ops.ensure_registered()
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward_native(self, x: torch.Tensor) -> torch.Tensor:
        """Normalise *x* through ``torch.ops.sglang_diffusion.rms_norm``."""
        return torch_ops.rms_norm(x, self.weight, self.variance_epsilon)
