"""Token-level agreement with transformers for every architecture, on make_model checkpoints.

Each case runs one fresh interpreter (``SGLANG_USE_CPU_ENGINE=1`` selects the
CPU platform) that generates greedily with the reference runtime, batched and
one prompt at a time, and with transformers.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from sglang.srt.configs.model_config import ModelConfig, ModelFileError
from sglang.srt.model_executor.model_loader import UnsupportedArchitectureError, load_model
from sglang.testing.make_model import make_model
from tests.support.dists import REPO_ROOT, run_python

MAX_NEW_TOKENS = 16
PROMPTS = [
    [5, 17, 42, 99, 100, 7, 8, 200, 31],
    [11, 12],
    [60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78],
    [250, 3, 4, 5, 6],
]

CASES: dict[str, dict[str, Any]] = {
    "llama-llama3-rope-sharded": {"arch": "llama", "llama3_rope": True, "shards": 2},
    "mistral": {"arch": "mistral"},
    "qwen2-rope-parameters": {"arch": "qwen2", "rope_format": "parameters"},
    "qwen3-tied-sharded": {"arch": "qwen3", "tie_word_embeddings": True, "shards": 3},
    # weights large enough for the CPU's packed matrix kernels (sglang.srt.layers.packed_linear)
    "llama-packed": {"arch": "llama", "hidden_size": 256, "intermediate_size": 512, "head_dim": 64},
}


def run_reference(paths: list[Path]) -> dict[str, Any]:
    argv = ["reference", str(MAX_NEW_TOKENS), json.dumps(PROMPTS), *map(str, paths)]
    code = f"import sys; from tests.srt.reference import main; sys.argv = {argv!r}; main()"
    result = run_python(code, path=[REPO_ROOT], env={"SGLANG_USE_CPU_ENGINE": "1"}, timeout=300)
    result.check()
    line = next(x for x in result.stdout.splitlines() if x.startswith("RESULT "))
    data: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return data


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One interpreter compares every case (torch and transformers import once)."""
    paths = {
        name: make_model(tmp_path_factory.mktemp(name), **spec) for name, spec in CASES.items()
    }
    results = run_reference(list(paths.values()))
    return {"bfloat16": results["bfloat16"]} | {
        name: results[str(path)] for name, path in paths.items()
    }


@pytest.fixture(params=sorted(CASES))
def outcome(request: pytest.FixtureRequest, outcomes: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = outcomes[request.param]
    return result


def test_greedy_ids_match_transformers(outcome: dict[str, Any]) -> None:
    assert outcome["batch_ids"] == outcome["hf_ids"]


def test_logprobs_match_transformers_in_float32(outcome: dict[str, Any]) -> None:
    for ours, theirs in zip(outcome["batch_logprobs"], outcome["hf_logprobs"], strict=True):
        assert len(ours) == MAX_NEW_TOKENS
        for a, b in zip(ours, theirs, strict=True):
            assert math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-4), (ours, theirs)


def test_batch_gives_the_tokens_of_each_prompt_alone(outcome: dict[str, Any]) -> None:
    assert outcome["batch_ids"] == outcome["alone_ids"]


def test_only_large_weights_are_packed(outcomes: dict[str, Any]) -> None:
    layers = 2 * 4 + 1  # per layer q/k/v, o, gate/up and down; the LM head
    assert outcomes["llama-packed"]["packed_weights"] == layers
    assert outcomes["mistral"]["packed_weights"] == 0


def test_every_page_is_free_afterwards(outcome: dict[str, Any]) -> None:
    assert outcome["free_pages"] == outcome["num_pages"]


def test_subsystems_come_from_the_cpu_platform(outcome: dict[str, Any]) -> None:
    assert outcome["pool_cls"] == "MHATokenToKVPool"
    assert outcome["backend_cls"] == "TorchNativeAttnBackend"


def test_model_loads_in_the_dtype_asked_for(outcomes: dict[str, Any]) -> None:
    assert outcomes["bfloat16"] == {
        "weights": ["torch.bfloat16"],
        "kv": "torch.bfloat16",
        "tokens": 2,
    }


# -- loading errors (raised before anything touches the platform) -------------------


def test_unsupported_architecture_is_named(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m")
    config = json.loads((path / "config.json").read_text())
    config["architectures"] = ["FancyForCausalLM"]
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(UnsupportedArchitectureError, match=r"FancyForCausalLM.*LlamaForCausalLM"):
        load_model(ModelConfig.from_pretrained(path), dtype=_float32(), device=_cpu())


def test_missing_weights_file_is_named(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m")
    (path / "model.safetensors").unlink()
    with pytest.raises(ModelFileError, match=r"model\.safetensors"):
        load_model(ModelConfig.from_pretrained(path), dtype=_float32(), device=_cpu())


def test_missing_shard_is_named(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", shards=2)
    (path / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(ModelFileError, match="model-00002-of-00002"):
        load_model(ModelConfig.from_pretrained(path), dtype=_float32(), device=_cpu())


def test_missing_config_is_named(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m")
    shutil.move(path / "config.json", tmp_path / "elsewhere.json")
    with pytest.raises(ModelFileError, match=r"config\.json"):
        ModelConfig.from_pretrained(path)


def _float32() -> Any:
    import torch

    return torch.float32


def _cpu() -> Any:
    import torch

    return torch.device("cpu")
