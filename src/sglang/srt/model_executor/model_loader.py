"""Building a model for a Hugging Face directory and loading its weights.

Architectures map to classes through :data:`MODEL_REGISTRY` (lazy
``"module:Class"`` paths). The model is built on
``current_platform.get_device(rank)`` in the dtype asked for, then each
checkpoint tensor goes through its parameter's ``weight_loader``; last, the
quantization config gives every linear layer its method, which converts
the loaded weights, and the LM head packs its weight where that applies
(:mod:`sglang.srt.layers.packed_linear`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import torch

from sglang.runtime.resolver import resolve
from sglang.sdk.srt_runtime import QuantizationConfig
from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.distributed import TensorParallel
from sglang.srt.layers.quantization import UnquantizedConfig, quantize_model
from sglang.srt.layers.vocab_parallel_embedding import ParallelLMHead
from sglang.srt.model_executor.weight_utils import iterate_weights, safetensors_files

__all__ = ["MODEL_REGISTRY", "UnsupportedArchitectureError", "get_model_cls", "load_model"]

MODEL_REGISTRY: Mapping[str, str] = MappingProxyType(
    {
        "LlamaForCausalLM": "sglang.srt.models.llama:LlamaForCausalLM",
        "MistralForCausalLM": "sglang.srt.models.llama:MistralForCausalLM",
        "Qwen2ForCausalLM": "sglang.srt.models.qwen2:Qwen2ForCausalLM",
        "Qwen3ForCausalLM": "sglang.srt.models.qwen3:Qwen3ForCausalLM",
    }
)
"""Supported ``config.json`` architectures -> the implementing class."""


class UnsupportedArchitectureError(ValueError):
    """``config.json`` names an architecture the runtime has no model for."""


def get_model_cls(architecture: str) -> type[Any]:
    """Return the model class for *architecture* (``UnsupportedArchitectureError`` if none)."""
    try:
        path = MODEL_REGISTRY[architecture]
    except KeyError:
        known = ", ".join(sorted(MODEL_REGISTRY))
        raise UnsupportedArchitectureError(
            f"unsupported architecture {architecture!r} in config.json; supported: {known}"
        ) from None
    cls = resolve(path)
    if not isinstance(cls, type):
        raise TypeError(f"model registry entry {architecture!r} names {path!r}, not a class")
    return cls


def load_model(
    config: ModelConfig,
    *,
    dtype: torch.dtype,
    device: torch.device,
    tp: TensorParallel | None = None,
    quant_config: QuantizationConfig | None = None,
) -> torch.nn.Module:
    """Build *config*'s model on *device* in *dtype*, load its weights, then quantize them.

    Raises:
        UnsupportedArchitectureError: No model for ``config.architecture``.
        ModelFileError: The weights are missing.
        ValueError: A parameter got no checkpoint tensor, or a shape differs.
    """
    cls = get_model_cls(config.architecture)
    safetensors_files(config.path)  # a missing file fails before the model is built
    model: torch.nn.Module = cls(config, tp=tp or TensorParallel())
    model.to(device=device, dtype=dtype)
    model.load_weights(iterate_weights(config.path))  # type: ignore[operator]
    quantize_model(model, quant_config or UnquantizedConfig())
    for module in model.modules():
        if isinstance(module, ParallelLMHead):
            module.process_weights_after_loading()
    return model.eval()
