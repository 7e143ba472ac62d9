"""``RMSNorm``, optionally fused with the residual add."""

from __future__ import annotations

import torch

from sglang.runtime.op_dispatch.custom_op import CustomOp

__all__ = ["RMSNorm"]


class RMSNorm(CustomOp):
    """Root-mean-square layer norm (computed in float32, as Llama does).

    ``forward(x)`` returns the normalised ``x``; ``forward(x, residual)``
    first adds *residual* and returns ``(normalised, x + residual)``.
    """

    op_name = "rms_norm"

    def __init__(self, hidden_size: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward_native(
        self, x: torch.Tensor, residual: torch.Tensor | None = None
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """Plain torch RMSNorm."""
        dtype = x.dtype
        if residual is not None:
            x = x + residual
            residual = x
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
        out = self.weight * h.to(dtype)
        return out if residual is None else (out, residual)
