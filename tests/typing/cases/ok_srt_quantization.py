"""A vendor's quantization config and linear method, typed by the sdk."""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.sdk import LinearMethod, QuantizationConfig, SRTPlatformLike
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class MyInt8Method:
    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        layer.register_buffer("qweight", weight.to(torch.int8))

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        qweight = layer.qweight
        assert isinstance(qweight, torch.Tensor)
        return functional.linear(x, qweight.to(x.dtype), bias)


class MyInt8Config:
    def get_name(self) -> str:
        return "my_int8"

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        return MyInt8Method()


class MySRTPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        return MyInt8Config() if quantization == "my_int8" else None

    def get_compile_backend(self, mode: str | None = None) -> str:
        return "my_compiler"


platform: SRTPlatformLike = MySRTPlatform()
config = platform.get_quantization_config("my_int8")
name: str | None = None if config is None else config.get_name()
