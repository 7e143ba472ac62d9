"""The reference pipeline's components, named by their config's ``_class_name``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["ARCHITECTURES"]

ARCHITECTURES: Mapping[str, str] = MappingProxyType(
    {
        "SGLangTinyTextEncoder": "sglang.multimodal_gen.runtime.models.text_encoder:TextEncoder",
        "SGLangTinyDiT": "sglang.multimodal_gen.runtime.models.dit:DiffusionTransformer",
        "SGLangTinyVAEDecoder": "sglang.multimodal_gen.runtime.models.vae:VAEDecoder",
    }
)
"""Component class name (``config.json``'s ``_class_name``) -> ``"module:Class"``."""
