"""Write a small random checkpoint in the Hugging Face layout.

The directory holds exactly what ``transformers`` writes for a causal LM:
``config.json`` (with ``rope_theta``/``rope_scaling`` as 4.4x writes them, or
the 5.x ``rope_parameters``), ``model.safetensors`` or shards with
``model.safetensors.index.json``, a byte-level BPE ``tokenizer.json`` trained
on the spot, ``tokenizer_config.json`` with a chat template (or
``chat_template.jinja``) and ``generation_config.json`` with the EOS ids::

    python -m sglang.testing.make_model /tmp/tiny-llama --arch llama
    python -m sglang.testing.make_model /tmp/bench --arch qwen3 --size small

Nothing is downloaded: weights are drawn from a seeded generator.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from sglang.testing.tokenizer_files import CHATML_TEMPLATE, SIMPLE_TEMPLATE, write_tokenizer

if TYPE_CHECKING:
    import torch

__all__ = ["ARCHITECTURES", "SIZES", "ArchTraits", "ModelSpec", "main", "make_model"]


@dataclass(frozen=True)
class ArchTraits:
    """What distinguishes one architecture's checkpoint from another's.

    Attributes:
        architecture: The ``architectures`` entry of ``config.json``.
        model_type: The ``model_type`` of ``config.json``.
        qkv_bias: Whether q/k/v projections carry a bias (Qwen2).
        qk_norm: Whether queries and keys are RMS-normalised per head (Qwen3).
        add_bos: Whether the tokenizer prepends the BOS token.
        chatml: Whether the chat template is ChatML (else a role-prefixed one).
        extra_config: Further architecture-specific ``config.json`` fields.
    """

    architecture: str
    model_type: str
    qkv_bias: bool = False
    qk_norm: bool = False
    add_bos: bool = True
    chatml: bool = False
    extra_config: Mapping[str, object] = field(default_factory=dict)


_QWEN_EXTRA = {"use_sliding_window": False, "sliding_window": None, "max_window_layers": 0}

ARCHITECTURES: Mapping[str, ArchTraits] = MappingProxyType(
    {
        "llama": ArchTraits(
            "LlamaForCausalLM",
            "llama",
            extra_config={"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1},
        ),
        "mistral": ArchTraits(
            "MistralForCausalLM", "mistral", extra_config={"sliding_window": None}
        ),
        "qwen2": ArchTraits(
            "Qwen2ForCausalLM", "qwen2", qkv_bias=True, add_bos=False, chatml=True,
            extra_config=_QWEN_EXTRA,
        ),
        "qwen3": ArchTraits(
            "Qwen3ForCausalLM", "qwen3", qk_norm=True, add_bos=False, chatml=True,
            extra_config={**_QWEN_EXTRA, "attention_bias": False},
        ),
    }
)  # fmt: skip
"""The supported ``--arch`` values and their traits."""


@dataclass(frozen=True)
class ModelSpec:
    """The shape and options of a generated checkpoint.

    Attributes:
        arch: A key of :data:`ARCHITECTURES`.
        hidden_size: The model width.
        intermediate_size: The MLP width.
        num_layers: The number of decoder layers.
        num_heads: The number of query heads.
        num_kv_heads: The number of key/value heads (fewer than
            ``num_heads`` means grouped-query attention).
        head_dim: The per-head width.
        vocab_size: The target vocabulary size (the tokenizer may be smaller;
            ``config.json`` is never smaller than the tokenizer).
        max_position_embeddings: The context length.
        tie_word_embeddings: Whether the LM head reuses the embedding.
        rope_theta: The rotary base.
        rms_norm_eps: The RMSNorm epsilon.
        llama3_rope: Whether to write ``llama3`` rope scaling.
        rope_format: ``"legacy"`` (``rope_theta``/``rope_scaling``, as 4.4x
            writes) or ``"parameters"`` (the 5.x ``rope_parameters``).
        shards: The number of safetensors files (more than one adds the index).
        chat_template_file: Write ``chat_template.jinja`` instead of putting
            the template into ``tokenizer_config.json``.
        seed: The weight generator's seed.
        init_std: The standard deviation of the random weights.
    """

    arch: str = "llama"
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    head_dim: int = 16
    vocab_size: int = 384
    max_position_embeddings: int = 256
    tie_word_embeddings: bool = False
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-6
    llama3_rope: bool = False
    rope_format: Literal["legacy", "parameters"] = "legacy"
    shards: int = 1
    chat_template_file: bool = False
    seed: int = 0
    init_std: float = 0.2

    @property
    def traits(self) -> ArchTraits:
        """The :class:`ArchTraits` of :attr:`arch` (``ValueError`` if unknown)."""
        try:
            return ARCHITECTURES[self.arch]
        except KeyError:
            known = ", ".join(ARCHITECTURES)
            raise ValueError(f"unknown architecture {self.arch!r}; known: {known}") from None


SIZES: Mapping[str, ModelSpec] = MappingProxyType(
    {
        "tiny": ModelSpec(),
        "small": ModelSpec(
            hidden_size=512,
            intermediate_size=1536,
            num_layers=10,
            num_heads=8,
            num_kv_heads=4,
            head_dim=64,
            vocab_size=2048,
            max_position_embeddings=1024,
            init_std=0.05,
        ),
        "smollm2-135m": ModelSpec(
            hidden_size=576,
            intermediate_size=1536,
            num_layers=30,
            num_heads=9,
            num_kv_heads=3,
            head_dim=64,
            vocab_size=49152,
            max_position_embeddings=8192,
            tie_word_embeddings=True,
            rope_theta=100000.0,
            rms_norm_eps=1e-5,
            init_std=0.041666666666666664,
        ),
    }
)
"""Named shapes: ``tiny`` for tests, ``small`` (about 35 M parameters) for benchmarks, and
``smollm2-135m``, the geometry of ``HuggingFaceTB/SmolLM2-135M-Instruct`` (Llama, 30 layers,
hidden 576, MLP 1536, 9 query and 3 key/value heads of 64, a 49152-token vocabulary, tied
embeddings, rope theta 100000, 8192 positions; about 135 M parameters) with random weights,
for measuring the engine on a real model's shape."""


def _rope_config(spec: ModelSpec) -> dict[str, object]:
    scaling: dict[str, object] | None = None
    if spec.llama3_rope:
        scaling = {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": max(spec.max_position_embeddings // 8, 16),
        }
    if spec.rope_format == "parameters":
        return {
            "rope_parameters": {
                "rope_type": "default",
                **(scaling or {}),
                "rope_theta": spec.rope_theta,
            }
        }
    return {"rope_theta": spec.rope_theta, "rope_scaling": scaling}


def _config(spec: ModelSpec, vocab_size: int, bos: int, eos: int) -> dict[str, object]:
    traits = spec.traits
    dtype_key = "dtype" if spec.rope_format == "parameters" else "torch_dtype"
    return {
        "architectures": [traits.architecture],
        "model_type": traits.model_type,
        "hidden_act": "silu",
        "hidden_size": spec.hidden_size,
        "intermediate_size": spec.intermediate_size,
        "num_hidden_layers": spec.num_layers,
        "num_attention_heads": spec.num_heads,
        "num_key_value_heads": spec.num_kv_heads,
        "head_dim": spec.head_dim,
        "max_position_embeddings": spec.max_position_embeddings,
        "rms_norm_eps": spec.rms_norm_eps,
        "initializer_range": spec.init_std,
        "attention_dropout": 0.0,
        "tie_word_embeddings": spec.tie_word_embeddings,
        "vocab_size": vocab_size,
        "bos_token_id": bos,
        "eos_token_id": eos,
        "use_cache": True,
        dtype_key: "float32",
        "transformers_version": "4.56.0" if spec.rope_format == "legacy" else "5.0.0",
        **_rope_config(spec),
        **traits.extra_config,
    }


def _weights(spec: ModelSpec, vocab_size: int) -> dict[str, torch.Tensor]:
    import torch

    gen = torch.Generator().manual_seed(spec.seed)

    def rand(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen) * spec.init_std

    def norm(width: int) -> torch.Tensor:
        return 1.0 + 0.1 * torch.randn(width, generator=gen)

    h, inter, d = spec.hidden_size, spec.intermediate_size, spec.head_dim
    q_out, kv_out = spec.num_heads * d, spec.num_kv_heads * d
    traits = spec.traits
    tensors: dict[str, torch.Tensor] = {"model.embed_tokens.weight": rand(vocab_size, h)}
    for i in range(spec.num_layers):
        p = f"model.layers.{i}."
        tensors[p + "input_layernorm.weight"] = norm(h)
        for name, rows in (("q", q_out), ("k", kv_out), ("v", kv_out)):
            tensors[f"{p}self_attn.{name}_proj.weight"] = rand(rows, h)
            if traits.qkv_bias:
                tensors[f"{p}self_attn.{name}_proj.bias"] = rand(rows)
        if traits.qk_norm:
            tensors[p + "self_attn.q_norm.weight"] = norm(d)
            tensors[p + "self_attn.k_norm.weight"] = norm(d)
        tensors[p + "self_attn.o_proj.weight"] = rand(h, q_out)
        tensors[p + "post_attention_layernorm.weight"] = norm(h)
        tensors[p + "mlp.gate_proj.weight"] = rand(inter, h)
        tensors[p + "mlp.up_proj.weight"] = rand(inter, h)
        tensors[p + "mlp.down_proj.weight"] = rand(h, inter)
    tensors["model.norm.weight"] = norm(h)
    if not spec.tie_word_embeddings:
        tensors["lm_head.weight"] = rand(vocab_size, h)
    return tensors


def _split(names: Sequence[str], shards: int) -> list[list[str]]:
    shards = max(1, min(shards, len(names)))
    size = -(-len(names) // shards)
    return [list(names[i : i + size]) for i in range(0, len(names), size)]


def _write_weights(directory: Path, tensors: Mapping[str, torch.Tensor], shards: int) -> None:
    from safetensors.torch import save_file

    groups = _split(sorted(tensors), shards)
    if len(groups) == 1:
        save_file(dict(tensors), str(directory / "model.safetensors"), metadata={"format": "pt"})
        return
    weight_map: dict[str, str] = {}
    for index, names in enumerate(groups, start=1):
        filename = f"model-{index:05d}-of-{len(groups):05d}.safetensors"
        save_file(
            {n: tensors[n] for n in names}, str(directory / filename), metadata={"format": "pt"}
        )
        weight_map.update(dict.fromkeys(names, filename))
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    index_data = {"metadata": {"total_size": total}, "weight_map": weight_map}
    _write_json(directory / "model.safetensors.index.json", index_data)


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def make_model(directory: str | Path, spec: ModelSpec | None = None, **overrides: object) -> Path:
    """Write a random checkpoint described by *spec* into *directory*.

    Args:
        directory: The target folder (created if missing).
        spec: The shape and options; the ``tiny`` size when omitted.
        **overrides: :class:`ModelSpec` fields that replace *spec*'s.

    Returns:
        The model directory.
    """
    spec = dataclasses.replace(spec or SIZES["tiny"], **overrides)  # type: ignore[arg-type]
    traits = spec.traits
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    info = write_tokenizer(
        path,
        vocab_size=spec.vocab_size,
        add_bos=traits.add_bos,
        chat_template=CHATML_TEMPLATE if traits.chatml else SIMPLE_TEMPLATE,
        template_file=spec.chat_template_file,
        model_max_length=spec.max_position_embeddings,
    )
    vocab_size = max(spec.vocab_size, -(-info.vocab_size // 64) * 64)
    eos = info.im_end_token_id if traits.chatml else info.eos_token_id
    _write_json(path / "config.json", _config(spec, vocab_size, info.bos_token_id, eos))
    eos_ids = [eos, info.eos_token_id] if traits.chatml else eos
    generation = {"bos_token_id": info.bos_token_id, "eos_token_id": eos_ids, "do_sample": False}
    _write_json(path / "generation_config.json", generation)
    _write_weights(path, _weights(spec, vocab_size), spec.shards)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m sglang.testing.make_model DIR [options]``."""
    parser = argparse.ArgumentParser(
        prog="python -m sglang.testing.make_model",
        description="Write a small random checkpoint in the Hugging Face layout.",
    )
    parser.add_argument("directory", type=Path)
    parser.add_argument("--arch", choices=sorted(ARCHITECTURES), default="llama")
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--tie-word-embeddings", action="store_true")
    parser.add_argument("--llama3-rope", action="store_true")
    parser.add_argument("--rope-format", choices=("legacy", "parameters"), default="legacy")
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--chat-template-file", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    path = make_model(
        args.directory,
        SIZES[args.size],
        arch=args.arch,
        tie_word_embeddings=args.tie_word_embeddings,
        llama3_rope=args.llama3_rope,
        rope_format=args.rope_format,
        shards=args.shards,
        chat_template_file=args.chat_template_file,
        seed=args.seed,
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
