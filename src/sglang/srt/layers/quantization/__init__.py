"""Quantization of the linear layers, chosen through ``current_platform``.

``--quantization NAME`` makes the runtime call
``current_platform.get_quantization_config(NAME)``; the returned
:class:`sglang.sdk.QuantizationConfig` gives each linear layer a
:class:`sglang.sdk.LinearMethod`, which converts the loaded weight
(``process_weights_after_loading``) and computes the layer (``apply``).
A platform that returns ``None`` gets the runtime's own config for the name
(:data:`QUANTIZATION_METHODS`: ``none`` and ``w8a16_int8``, weight-only int8).
"""

from sglang.srt.layers.quantization.base import UnquantizedConfig, UnquantizedLinearMethod
from sglang.srt.layers.quantization.int8 import (
    Int8WeightOnlyConfig,
    Int8WeightOnlyLinearMethod,
    quantize_int8,
)
from sglang.srt.layers.quantization.registry import (
    QUANTIZATION_METHODS,
    builtin_quantization_config,
    quantize_model,
    resolve_quantization_config,
)

__all__ = [
    "QUANTIZATION_METHODS",
    "Int8WeightOnlyConfig",
    "Int8WeightOnlyLinearMethod",
    "UnquantizedConfig",
    "UnquantizedLinearMethod",
    "builtin_quantization_config",
    "quantize_int8",
    "quantize_model",
    "resolve_quantization_config",
]
