"""No quantization: :class:`UnquantizedConfig` and its linear method."""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.sdk.srt_runtime import LinearMethod

__all__ = ["UnquantizedConfig", "UnquantizedLinearMethod"]


class UnquantizedLinearMethod:
    """Keeps the loaded weight as it is; ``apply`` is ``x @ weight.T + bias``.

    Satisfies :class:`sglang.sdk.LinearMethod`.
    """

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        """Nothing to convert."""

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        """Return ``functional.linear(x, layer.weight, bias)``."""
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        return functional.linear(x, weight, bias)


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
