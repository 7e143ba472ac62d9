"""``ModelConfig``: what the runtime needs from a Hugging Face model directory.

Reads ``config.json`` as ``transformers`` 4.4x writes it (``rope_theta`` and
``rope_scaling``) and as 5.x writes it (``rope_parameters``), plus the EOS
ids of ``generation_config.json``. The chat template comes from
``chat_template.jinja`` or ``tokenizer_config.json``. Importing this module
does not import torch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["ModelConfig", "ModelFileError", "RopeConfig"]


class ModelFileError(FileNotFoundError):
    """A file the model directory must hold is missing or unreadable."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelFileError(f"model file missing: {path}") from None
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read model file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ModelFileError(f"model file {path} does not hold a JSON object")
    return data


@dataclass(frozen=True)
class RopeConfig:
    """Rotary embedding parameters.

    Attributes:
        theta: The rotary base.
        rope_type: ``"default"`` or a scaling type (``"llama3"``).
        scaling: The scaling parameters (``factor``, ...), empty for ``default``.
    """

    theta: float = 10000.0
    rope_type: str = "default"
    scaling: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_hf(cls, config: Mapping[str, Any]) -> RopeConfig:
        """Read ``rope_parameters`` (5.x) or ``rope_theta``/``rope_scaling`` (4.4x)."""
        params = config.get("rope_parameters")
        if not isinstance(params, Mapping):
            params = dict(config.get("rope_scaling") or {})
            params.setdefault("rope_theta", config.get("rope_theta", 10000.0))
        rest = {k: v for k, v in params.items() if k not in ("rope_theta", "rope_type", "type")}
        rope_type = str(params.get("rope_type", params.get("type", "default")))
        return cls(float(params["rope_theta"]), rope_type, MappingProxyType(rest))


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a decoder-only model, read from its directory.

    Attributes:
        path: The model directory.
        architecture: The first ``architectures`` entry of ``config.json``.
        hidden_size: The model width.
        intermediate_size: The MLP width.
        num_layers: The number of decoder layers.
        num_heads: The number of query heads.
        num_kv_heads: The number of key/value heads.
        head_dim: The per-head width.
        vocab_size: The vocabulary size.
        max_position_embeddings: The context length of the model.
        rms_norm_eps: The RMSNorm epsilon.
        tie_word_embeddings: Whether the LM head shares the embedding weight.
        attention_bias: Whether q/k/v projections carry a bias.
        rope: The rotary embedding parameters.
        eos_token_ids: The ids that end generation (``generation_config.json``,
            else ``config.json``).
        hf_config: The whole ``config.json``.
    """

    path: Path
    architecture: str
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    max_position_embeddings: int
    rms_norm_eps: float
    tie_word_embeddings: bool
    attention_bias: bool
    rope: RopeConfig
    eos_token_ids: tuple[int, ...]
    hf_config: Mapping[str, Any]

    @classmethod
    def from_pretrained(cls, path: str | Path) -> ModelConfig:
        """Read *path*'s ``config.json`` (and ``generation_config.json`` when present).

        Raises:
            ModelFileError: ``config.json`` is missing or unreadable.
            ValueError: ``config.json`` names no architecture.
        """
        root = Path(path)
        if not root.is_dir():
            raise ModelFileError(f"model directory not found: {root}")
        hf = _read_json(root / "config.json")
        architectures = hf.get("architectures") or []
        if not architectures:
            raise ValueError(f"{root / 'config.json'} names no architecture ('architectures')")
        heads = int(hf["num_attention_heads"])
        eos: Any = hf.get("eos_token_id")
        if (root / "generation_config.json").is_file():
            eos = _read_json(root / "generation_config.json").get("eos_token_id", eos)
        eos_ids = (eos,) if isinstance(eos, int) else tuple(int(e) for e in eos or ())
        return cls(
            path=root,
            architecture=str(architectures[0]),
            hidden_size=int(hf["hidden_size"]),
            intermediate_size=int(hf["intermediate_size"]),
            num_layers=int(hf["num_hidden_layers"]),
            num_heads=heads,
            num_kv_heads=int(hf.get("num_key_value_heads") or heads),
            head_dim=int(hf.get("head_dim") or int(hf["hidden_size"]) // heads),
            vocab_size=int(hf["vocab_size"]),
            max_position_embeddings=int(hf.get("max_position_embeddings", 2048)),
            rms_norm_eps=float(hf.get("rms_norm_eps", 1e-6)),
            tie_word_embeddings=bool(hf.get("tie_word_embeddings", False)),
            attention_bias=bool(hf.get("attention_bias", False)),
            rope=RopeConfig.from_hf(hf),
            eos_token_ids=eos_ids,
            hf_config=MappingProxyType(hf),
        )
