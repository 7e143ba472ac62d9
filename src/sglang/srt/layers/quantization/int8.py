"""Weight-only int8: :class:`Int8WeightOnlyConfig` (``--quantization w8a16_int8``).

After loading, each linear weight is replaced by an ``int8`` tensor and one
``float32`` scale per output channel (symmetric, ``max |w| / 127``); the
forward multiplies the activations by the int8 weight (cast to the
activation dtype) and rescales the result per channel. Weights take a
quarter of their float32 memory; activations keep their dtype.
"""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.sdk.srt_runtime import LinearMethod

__all__ = ["Int8WeightOnlyConfig", "Int8WeightOnlyLinearMethod", "quantize_int8"]


def quantize_int8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(int8 weight, per-output-channel scale)`` with ``weight ~ q * scale[:, None]``."""
    w = weight.detach().float()
    scale = w.abs().amax(dim=1).clamp(min=1e-12) / 127.0
    q = torch.round(w / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale


class Int8WeightOnlyLinearMethod:
    """Stores ``qweight`` (int8) and ``weight_scale`` instead of ``weight``.

    Satisfies :class:`sglang.sdk.LinearMethod`.
    """

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        """Quantize ``layer.weight`` and drop the float weight."""
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        q, scale = quantize_int8(weight)
        del layer.weight
        layer.register_buffer("qweight", q)
        layer.register_buffer("weight_scale", scale.to(weight.dtype))

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        """Return ``(x @ qweight.T) * weight_scale + bias``."""
        qweight, scale = layer.qweight, layer.weight_scale
        assert isinstance(qweight, torch.Tensor)
        assert isinstance(scale, torch.Tensor)
        y = functional.linear(x, qweight.to(x.dtype)) * scale
        return y if bias is None else y + bias


class Int8WeightOnlyConfig:
    """Weight-only int8 for every linear layer; satisfies :class:`sglang.sdk.QuantizationConfig`."""

    def get_name(self) -> str:
        """Return ``"w8a16_int8"``."""
        return "w8a16_int8"

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        """Return the int8 weight-only method for every linear layer."""
        return Int8WeightOnlyLinearMethod()
