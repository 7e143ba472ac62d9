"""No quantization: :class:`UnquantizedConfig` and its linear method."""

from __future__ import annotations

import torch

from sglang.sdk.srt_runtime import LinearMethod
from sglang.srt.layers.packed_linear import linear, pack_weight

__all__ = ["UnquantizedConfig", "UnquantizedLinearMethod"]


class UnquantizedLinearMethod:
    """Keeps the loaded weight as it is; ``apply`` is ``x @ weight.T + bias``.

    Satisfies :class:`sglang.sdk.LinearMethod`. On a CPU, a large enough
    ``float32`` weight also gets a oneDNN-packed copy after loading, which
    ``apply`` computes with (:mod:`sglang.srt.layers.packed_linear`).
    """

    def __init__(self) -> None:
        self.packed_weight: torch.Tensor | None = None

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        """Pack the weight for the CPU's matrix kernels where that applies; nothing else."""
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        self.packed_weight = pack_weight(weight)

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        """Return ``functional.linear(x, layer.weight, bias)`` (with the packed copy if any)."""
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        return linear(x, weight, self.packed_weight, bias)


class UnquantizedConfig:
    """The configuration of a model that is not quantized (``--quantization none``).

    Satisfies :class:`sglang.sdk.QuantizationConfig`; every linear layer gets
    an :class:`UnquantizedLinearMethod`.
    """

    def get_name(self) -> str:
        """Return ``"none"``."""
        return "none"

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        """Return the unquantized method for every layer."""
        return UnquantizedLinearMethod()
