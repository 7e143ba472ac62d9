"""make_model writes the Hugging Face layout; ModelConfig reads both config forms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sglang.srt.configs.model_config import ModelConfig
from sglang.srt.hf_tokenizer import HFTokenizer
from sglang.srt.model_executor.weight_utils import safetensors_files
from sglang.testing.make_model import ARCHITECTURES, SIZES, make_model


def test_single_file_layout_and_config(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", arch="qwen2")
    names = {p.name for p in path.iterdir()}
    assert names == {
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
    }
    config = ModelConfig.from_pretrained(path)
    assert config.architecture == "Qwen2ForCausalLM"
    assert (config.num_heads, config.num_kv_heads, config.head_dim) == (4, 2, 16)
    assert config.rope.theta == 10000.0
    assert config.rope.rope_type == "default"
    assert config.eos_token_ids == (3, 1)  # <|im_end|>, </s> from generation_config.json
    assert "<|im_start|>" in (HFTokenizer.from_pretrained(path).chat_template or "")


def test_sharded_weights_have_an_index(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", shards=3)
    index = json.loads((path / "model.safetensors.index.json").read_text())
    files = safetensors_files(path)
    assert [f.name for f in files] == [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]
    assert set(index["weight_map"].values()) == {f.name for f in files}
    assert "lm_head.weight" in index["weight_map"]


def test_tied_embeddings_write_no_lm_head(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", tie_word_embeddings=True, shards=2)
    index = json.loads((path / "model.safetensors.index.json").read_text())
    assert "lm_head.weight" not in index["weight_map"]
    assert ModelConfig.from_pretrained(path).tie_word_embeddings


@pytest.mark.parametrize("rope_format", ["legacy", "parameters"])
def test_llama3_rope_reads_from_both_config_forms(tmp_path: Path, rope_format: str) -> None:
    path = make_model(tmp_path / "m", llama3_rope=True, rope_format=rope_format, rope_theta=5e5)
    raw = json.loads((path / "config.json").read_text())
    assert ("rope_parameters" in raw) is (rope_format == "parameters")
    rope = ModelConfig.from_pretrained(path).rope
    assert (rope.theta, rope.rope_type, rope.scaling["factor"]) == (5e5, "llama3", 8.0)
    assert rope.scaling["original_max_position_embeddings"] == 32


def test_chat_template_file(tmp_path: Path) -> None:
    path = make_model(tmp_path / "m", chat_template_file=True)
    assert (path / "chat_template.jinja").is_file()
    assert "chat_template" not in json.loads((path / "tokenizer_config.json").read_text())
    assert "bos_token" in (HFTokenizer.from_pretrained(path).chat_template or "")


def test_tokenizer_adds_bos_for_llama_only(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    for arch, first in (("llama", [0]), ("qwen3", [])):
        path = make_model(tmp_path / arch, arch=arch)
        ids = Tokenizer.from_file(str(path / "tokenizer.json")).encode("Hello world").ids
        assert ids[: len(first)] == first
        assert not first or ids.count(0) == 1
        vocab = ModelConfig.from_pretrained(path).vocab_size
        assert vocab % 64 == 0
        assert max(ids) < vocab


def test_small_size_is_benchmark_sized() -> None:
    spec = SIZES["small"]
    h, d = spec.hidden_size, spec.head_dim
    per_layer = h * (spec.num_heads + 2 * spec.num_kv_heads) * d + spec.num_heads * d * h
    per_layer += 3 * h * spec.intermediate_size
    total = spec.num_layers * per_layer + 2 * spec.vocab_size * h
    assert 30e6 <= total <= 60e6


def test_smollm2_geometry_is_smollm2_135m_instruct() -> None:
    spec = SIZES["smollm2-135m"]
    assert (spec.arch, spec.num_layers, spec.hidden_size, spec.intermediate_size) == (
        "llama",
        30,
        576,
        1536,
    )
    assert (spec.num_heads, spec.num_kv_heads, spec.head_dim) == (9, 3, 64)
    assert (spec.vocab_size, spec.max_position_embeddings) == (49152, 8192)
    assert spec.tie_word_embeddings
    assert (spec.rope_theta, spec.rms_norm_eps) == (100000.0, 1e-5)
    h, d = spec.hidden_size, spec.head_dim
    per_layer = h * (spec.num_heads + 2 * spec.num_kv_heads) * d + spec.num_heads * d * h
    per_layer += 3 * h * spec.intermediate_size
    total = spec.num_layers * per_layer + spec.vocab_size * h  # tied: one table
    assert 134e6 <= total <= 135e6


def test_rms_norm_eps_reaches_the_config(tmp_path: Path) -> None:
    path = make_model(tmp_path / "eps", rms_norm_eps=1e-5)
    assert json.loads((path / "config.json").read_text())["rms_norm_eps"] == 1e-5


def test_unknown_architecture_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown architecture 'gpt2'; known: llama"):
        make_model(tmp_path / "m", arch="gpt2")


def test_command_line(tmp_path: Path) -> None:
    target = tmp_path / "cli"
    argv = [sys.executable, "-m", "sglang.testing.make_model", str(target), "--arch", "mistral"]
    proc = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120)
    assert proc.stdout.strip() == str(target)
    assert "RuntimeWarning" not in proc.stderr
    assert ModelConfig.from_pretrained(target).architecture == ARCHITECTURES["mistral"].architecture
