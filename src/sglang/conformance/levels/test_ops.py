"""Ops [OPS]: every op the platform dispatches matches ``forward_native`` on the CPU.

SRT's fused ops (OPS-01 to OPS-03) and diffusion's custom ops (OPS-04,
OPS-05).

Each op is constructed as the runtime constructs it, so its forward is
resolved from the platform's dispatch key (a registered implementation,
``forward_<key>`` or ``forward_oot``); an op that resolves to
``forward_native`` has nothing to compare and is skipped. Shapes and dtypes
come from hypothesis (derandomised, so a run is reproducible).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from sglang.conformance._clauses import clause
from sglang.conformance._target import Target
from sglang.conformance.levels._support import initialised

__all__ = ["TOLERANCES", "TestOps", "check_op"]

TOLERANCES = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}
"""``(rtol, atol)`` by dtype name."""

_EXAMPLES = 12


def _close(actual: Any, expected: Any, dtype: str) -> None:
    import torch

    rtol, atol = TOLERANCES[dtype]
    pairs = (
        zip(actual, expected, strict=True) if isinstance(expected, tuple) else [(actual, expected)]
    )
    for mine, theirs in pairs:
        shown = f"{mine.dtype}{tuple(mine.shape)} differs from forward_native's"
        assert mine.dtype == theirs.dtype, f"{shown} {theirs.dtype}"
        assert mine.shape == theirs.shape, f"{shown} {tuple(theirs.shape)}"
        torch.testing.assert_close(mine.cpu(), theirs, rtol=rtol, atol=atol)


def check_op(
    target: Target, build: Callable[[int], Any], inputs: Callable[..., tuple[Any, ...]]
) -> None:
    """Compare the dispatched op with ``forward_native`` on the CPU over generated cases.

    *build(width)* makes the op; *inputs(op, rows, width, dtype, seed)* its CPU inputs.
    """
    import torch
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from sglang.runtime.op_dispatch import DispatchSource

    platform = initialised(target)
    probe = build(16)
    if probe.dispatch_source is DispatchSource.NATIVE:
        pytest.skip(
            f"{probe.resolution.op_name} dispatches to forward_native on this platform: "
            "nothing to compare"
        )
    device = platform.get_device(0)

    @settings(
        max_examples=_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        rows=st.integers(1, 9),
        width=st.sampled_from([8, 16, 64]),
        dtype=st.sampled_from(sorted(TOLERANCES)),
        seed=st.integers(0, 2**16),
    )
    def case(rows: int, width: int, dtype: str, seed: int) -> None:
        op = build(width)
        args = inputs(op, rows, width, getattr(torch, dtype), seed)
        reference = copy.deepcopy(op)
        expected = reference.forward_native(*args)
        actual = op.to(device)(*(a.to(device) for a in args))
        _close(actual, expected, dtype)

    with torch.no_grad():
        case()


def _seeded(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _rms_norm_builder(path: str) -> Callable[[int], Any]:
    """A builder of the ``RMSNorm`` class at *path* (``module:Class``), with a varied weight."""

    def build(width: int) -> Any:
        import importlib

        import torch

        module, _, name = path.partition(":")
        op = getattr(importlib.import_module(module), name)(width, eps=1e-6)
        with torch.no_grad():
            op.weight.copy_(torch.linspace(0.5, 1.5, width))
        return op

    return build


_rms_norm = _rms_norm_builder("sglang.srt.layers.layernorm:RMSNorm")
_diffusion_rms_norm = _rms_norm_builder("sglang.multimodal_gen.runtime.layers.layernorm:RMSNorm")


def _rms_inputs(op: Any, rows: int, width: int, dtype: Any, seed: int) -> tuple[Any, ...]:
    import torch

    x = torch.randn(rows, width, generator=_seeded(seed)).to(dtype)
    op.weight.data = op.weight.data.to(dtype)
    return (x,)


def _silu(width: int) -> Any:
    from sglang.srt.layers.activation import SiluAndMul

    return SiluAndMul()


def _silu_inputs(op: Any, rows: int, width: int, dtype: Any, seed: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(rows, 2 * width, generator=_seeded(seed)).to(dtype),)


_HEADS = 2


def _rotary(width: int) -> Any:
    from sglang.srt.configs.model_config import RopeConfig
    from sglang.srt.layers.rotary_embedding import get_rope

    return get_rope(width, 64, RopeConfig())


def _rotary_inputs(op: Any, rows: int, width: int, dtype: Any, seed: int) -> tuple[Any, ...]:
    import torch

    generator = _seeded(seed)
    positions = torch.randint(0, 64, (rows,), generator=generator)
    q = torch.randn(rows, _HEADS * width, generator=generator).to(dtype)
    k = torch.randn(rows, _HEADS * width, generator=generator).to(dtype)
    return positions, q, k


def _diffusion_gelu(width: int) -> Any:
    from sglang.multimodal_gen.runtime.layers.activation import GELU

    return GELU()


def _one_input(op: Any, rows: int, width: int, dtype: Any, seed: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(rows, width, generator=_seeded(seed)).to(dtype),)


class TestOps:
    """The fused and custom ops of both runtimes, as the platform dispatches them."""

    @clause("OPS-01")
    def test_rms_norm(self, sglang_target: Target, sglang_platform: object) -> None:
        """``RMSNorm`` matches ``forward_native``."""
        check_op(sglang_target, _rms_norm, _rms_inputs)

    @clause("OPS-02")
    def test_silu_and_mul(self, sglang_target: Target, sglang_platform: object) -> None:
        """``SiluAndMul`` matches ``forward_native``."""
        check_op(sglang_target, _silu, _silu_inputs)

    @clause("OPS-03")
    def test_rotary_embedding(self, sglang_target: Target, sglang_platform: object) -> None:
        """``RotaryEmbedding`` matches ``forward_native``."""
        check_op(sglang_target, _rotary, _rotary_inputs)

    @clause("OPS-04")
    def test_diffusion_rms_norm(self, sglang_target: Target, sglang_platform: object) -> None:
        """The diffusion ``RMSNorm`` matches ``forward_native``."""
        check_op(sglang_target, _diffusion_rms_norm, _rms_inputs)

    @clause("OPS-05")
    def test_diffusion_gelu(self, sglang_target: Target, sglang_platform: object) -> None:
        """The diffusion ``GELU`` matches ``forward_native``."""
        check_op(sglang_target, _diffusion_gelu, _one_input)
