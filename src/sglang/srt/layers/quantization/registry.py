"""The runtime's quantization methods and the platform call that chooses the config."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import torch

from sglang.runtime.resolver import resolve
from sglang.sdk.srt import SRTPlatform
from sglang.sdk.srt_runtime import QuantizationConfig

__all__ = [
    "QUANTIZATION_METHODS",
    "builtin_quantization_config",
    "quantize_model",
    "resolve_quantization_config",
]

QUANTIZATION_METHODS: Mapping[str, str] = MappingProxyType(
    {
        "none": "sglang.srt.layers.quantization.base:UnquantizedConfig",
        "w8a16_int8": "sglang.srt.layers.quantization.int8:Int8WeightOnlyConfig",
    }
)
"""``--quantization`` names the reference runtime implements -> their config class."""


def builtin_quantization_config(quantization: str) -> QuantizationConfig:
    """Return the reference runtime's config for *quantization*.

    Raises:
        ValueError: The runtime has no such method (the message lists them).
    """
    try:
        path = QUANTIZATION_METHODS[quantization]
    except KeyError:
        known = ", ".join(QUANTIZATION_METHODS)
        raise ValueError(
            f"--quantization {quantization!r} is not supported by the reference runtime; "
            f"supported: {known} (a platform plugin may add its own)"
        ) from None
    cls: Any = resolve(path)
    config: QuantizationConfig = cls()
    return config


def resolve_quantization_config(
    platform: SRTPlatform, quantization: str | None
) -> QuantizationConfig:
    """The config the model's linear layers use.

    Without ``--quantization`` the model is not quantized (the platform is
    not asked, as upstream). Otherwise
    ``platform.get_quantization_config(quantization)`` decides: its object is
    used as it is, and ``None`` means the runtime's own config for that name.
    """
    if quantization is None:
        return builtin_quantization_config("none")
    config = platform.get_quantization_config(quantization)
    return builtin_quantization_config(quantization) if config is None else config


def quantize_model(model: torch.nn.Module, config: QuantizationConfig) -> None:
    """Give every linear layer of *model* its method from *config* and convert its weights.

    A linear layer is a module with a ``quant_method`` attribute (the
    runtime's parallel linears); the prefix passed to
    ``config.get_quant_method`` is its dotted name in *model*.
    """
    for name, module in model.named_modules():
        if hasattr(module, "quant_method"):
            method = config.get_quant_method(module, name)
            object.__setattr__(module, "quant_method", method)  # not a parameter or submodule
            method.process_weights_after_loading(module)
