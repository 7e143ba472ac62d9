"""Quantization configs and methods that do not satisfy the sdk protocols."""

from __future__ import annotations

import torch

from sglang.sdk import LinearMethod, QuantizationConfig
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class NoApply:
    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        pass


class NamelessConfig:
    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        return NoApply()  # expect-error


class ApplyTakesNoBias:
    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        pass

    def apply(self, layer: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
        return x


method: LinearMethod = ApplyTakesNoBias()  # expect-error
config: QuantizationConfig = NamelessConfig()  # expect-error


class MySRTPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT

    def get_quantization_config(self, quantization: str) -> NoApply | None:  # expect-error
        return None
