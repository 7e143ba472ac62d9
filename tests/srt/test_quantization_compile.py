"""Quantization and torch.compile come from the platform.

One fresh interpreter selects a test platform through a real entry point
(``tests/srt/quant_platform.py``) and builds model runners: with
``--quantization fake_int4`` the platform's own config changes every linear
layer's weights and computes them; with ``w8a16_int8`` the platform answers
``None`` and the runtime's weight-only int8 config replaces the weights by
int8 tensors; with ``--enable-torch-compile`` the platform's compile backend
receives the decoder layers' graphs, and the tokens stay the same.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch

from sglang.runtime.builtin.srt import CpuSRTPlatform
from sglang.sdk.constants import SRT_PLATFORMS_GROUP
from sglang.srt.layers.quantization import (
    Int8WeightOnlyConfig,
    UnquantizedConfig,
    quantize_int8,
    resolve_quantization_config,
)
from sglang.testing.make_model import make_model
from tests.support.dists import REPO_ROOT, Dist, Site, run_python

SCRIPT = """
import json
import torch
from sglang.srt.platforms import current_platform
from sglang.srt.model_executor.model_runner import ModelRunner
from tests.srt.quant_platform import CALLS

prompts = [[5, 17, 42, 99, 100], [11, 12, 13]]

def run(**options):
    runner = ModelRunner({model!r}, max_total_tokens=256, page_size=4, **options)
    outputs = runner.generate_greedy(prompts, 8)
    linears = {{
        name: sorted({{str(t.dtype) for t in [*m.buffers(), *m.parameters()]}})
        for name, m in runner.model.named_modules() if hasattr(m, "quant_method")
    }}
    levels = max(
        (len(torch.unique(m.weight[0])) for m in runner.model.modules()
         if hasattr(m, "quant_method") and hasattr(m, "weight")),
        default=0,
    )
    return {{
        "config": runner.quant_config.get_name(),
        "methods": sorted({{type(m.quant_method).__name__ for m in runner.model.modules()
                           if hasattr(m, "quant_method")}}),
        "linears": linears,
        "levels": levels,
        "ids": [o.output_ids for o in outputs],
        "logprobs": [o.logprobs for o in outputs],
        "compile_backend": runner.compile_backend,
    }}

result = {{"platform": type(current_platform).__name__}}
result["plain"] = run()
result["fake"] = run(quantization="fake_int4")
result["fake_calls"] = CALLS["fake_int4_apply"]
result["int8"] = run(quantization="w8a16_int8")
result["compiled"] = run(enable_torch_compile=True)
result["graphs"] = CALLS["graphs"]
print("RESULT " + json.dumps(result))
"""


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("quant")
    model = make_model(root / "llama", arch="llama")
    site = Site(root / "site")
    site.install(
        Dist(
            "sglang-quant-test-platform",
            "0.1.0",
            entry_points={SRT_PLATFORMS_GROUP: {"quanttest": "tests.srt.quant_platform:activate"}},
        )
    )
    result = run_python(
        SCRIPT.format(model=str(model)),
        path=[site.root, REPO_ROOT],
        env={"SGLANG_PLATFORM": "quanttest"},
        timeout=600,
    ).check()
    line = next(x for x in result.stdout.splitlines() if x.startswith("RESULT "))
    data: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return data


def _max_diff(a: list[list[float]], b: list[list[float]]) -> float:
    return max(abs(x - y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True))


def _first_token_diff(a: dict[str, Any], b: dict[str, Any]) -> float:
    """The largest logprob difference of the first output token (same context in both)."""
    pairs = zip(a["logprobs"], b["logprobs"], strict=True)
    return max(abs(float(x[0]) - float(y[0])) for x, y in pairs)


def test_the_platforms_own_config_changes_every_linear(outcome: dict[str, Any]) -> None:
    assert outcome["platform"] == "QuantTestPlatform"
    plain, fake = outcome["plain"], outcome["fake"]
    assert (plain["config"], plain["methods"]) == ("none", ["UnquantizedLinearMethod"])
    assert (fake["config"], fake["methods"]) == ("fake_int4", ["FakeInt4Method"])
    assert len(fake["linears"]) == len(plain["linears"]) > 0
    assert fake["levels"] <= 15 < plain["levels"]  # weights rounded to 4 bits
    assert outcome["fake_calls"] > 0  # the platform's method computed the layers
    assert _first_token_diff(fake, plain) > 1e-4


def test_none_from_the_platform_means_the_runtimes_int8(outcome: dict[str, Any]) -> None:
    int8, plain = outcome["int8"], outcome["plain"]
    assert int8["methods"] == ["Int8WeightOnlyLinearMethod"]
    assert all(dtypes == ["torch.float32", "torch.int8"] for dtypes in int8["linears"].values()), (
        int8["linears"]
    )
    assert 1e-5 < _first_token_diff(int8, plain) < 0.2


def test_compile_uses_the_platforms_backend_and_keeps_the_tokens(outcome: dict[str, Any]) -> None:
    compiled, plain = outcome["compiled"], outcome["plain"]
    assert compiled["compile_backend"] == "sglang_test_counting"
    assert outcome["graphs"] > 0
    assert compiled["ids"] == plain["ids"]
    assert _max_diff(compiled["logprobs"], plain["logprobs"]) < 1e-4


def test_builtin_platform_answers_with_real_configs() -> None:
    platform = CpuSRTPlatform()
    assert isinstance(platform.get_quantization_config("none"), UnquantizedConfig)
    assert isinstance(platform.get_quantization_config("w8a16_int8"), Int8WeightOnlyConfig)
    assert isinstance(resolve_quantization_config(platform, None), UnquantizedConfig)
    with pytest.raises(ValueError, match=r"--quantization 'awq'.*none, w8a16_int8"):
        resolve_quantization_config(platform, "awq")


def test_int8_round_trip_is_within_half_a_step() -> None:
    weight = torch.randn(16, 32)
    q, scale = quantize_int8(weight)
    assert q.dtype == torch.int8
    assert scale.shape == (16,)
    error = (q.float() * scale[:, None] - weight).abs()
    assert bool((error <= scale[:, None] / 2 + 1e-6).all())
