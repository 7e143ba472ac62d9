"""A test SRT platform (the CPU platform plus its own quantization and compile backend).

Selected through a real entry point (``SGLANG_PLATFORM=quanttest``); its
activation callback names :class:`QuantTestPlatform`. ``fake_int4`` is its
own quantization method, a per-channel 4-bit fake quantization that counts
its forward calls; for any other name it returns ``None`` (the runtime's
default config). Its compile backend ``sglang_test_counting`` records every
graph torch.compile hands it and runs the graph as traced.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional

from sglang.runtime.builtin.srt import CpuSRTPlatform
from sglang.sdk import LinearMethod, PlatformEnum, QuantizationConfig

CALLS = {"fake_int4_apply": 0, "graphs": 0}


def activate() -> str:
    """The activation callback."""
    return "tests.srt.quant_platform:QuantTestPlatform"


class FakeInt4Method:
    """Rounds each output channel's weight to 15 levels (kept in float) after loading."""

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        scale = weight.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 7.0
        weight.data.copy_(torch.round(weight / scale).clamp(-7, 7) * scale)

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        CALLS["fake_int4_apply"] += 1
        weight = layer.weight
        assert isinstance(weight, torch.Tensor)
        return functional.linear(x, weight, bias)


class FakeInt4Config:
    """``fake_int4`` for every linear layer."""

    def get_name(self) -> str:
        return "fake_int4"

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        return FakeInt4Method()


def _counting(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:
    CALLS["graphs"] += 1
    return gm.forward


class QuantTestPlatform(CpuSRTPlatform):
    """The CPU platform with the test's quantization and compile backend."""

    _enum = PlatformEnum.OOT

    def get_quantization_config(self, quantization: str) -> QuantizationConfig | None:
        return FakeInt4Config() if quantization == "fake_int4" else None

    def get_compile_backend(self, mode: str | None = None) -> str:
        from torch._dynamo import list_backends, register_backend

        if "sglang_test_counting" not in list_backends(exclude_tags=()):
            register_backend(_counting, name="sglang_test_counting")
        return "sglang_test_counting"
