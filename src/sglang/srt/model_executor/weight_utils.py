"""Finding and reading a directory's safetensors weights (single file or shards)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import torch

from sglang.srt.configs.model_config import ModelFileError

__all__ = ["INDEX_FILE", "SINGLE_FILE", "iterate_weights", "safetensors_files"]

SINGLE_FILE = "model.safetensors"
"""The weights file of an unsharded checkpoint."""
INDEX_FILE = "model.safetensors.index.json"
"""The index of a sharded checkpoint (``weight_map``: tensor name -> shard file)."""


def safetensors_files(path: Path) -> list[Path]:
    """Return the weight files of the checkpoint in *path*.

    Raises:
        ModelFileError: No weights, or a shard the index names is missing.
    """
    index = path / INDEX_FILE
    if index.is_file():
        weight_map = json.loads(index.read_text(encoding="utf-8")).get("weight_map", {})
        files = [path / name for name in sorted(set(weight_map.values()))]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise ModelFileError(f"{index} names missing shard(s): {', '.join(missing)}")
        return files
    if (path / SINGLE_FILE).is_file():
        return [path / SINGLE_FILE]
    found = sorted(path.glob("*.safetensors"))
    if not found:
        raise ModelFileError(f"no weights in {path}: expected {SINGLE_FILE} or {INDEX_FILE}")
    return found


def iterate_weights(path: Path) -> Iterator[tuple[str, torch.Tensor]]:
    """Yield ``(name, tensor)`` for every tensor of the checkpoint, on the CPU."""
    from safetensors import safe_open

    for file in safetensors_files(path):
        with safe_open(str(file), framework="pt") as handle:
            for name in handle.keys():  # noqa: SIM118 - safe_open has no __iter__
                yield name, handle.get_tensor(name)
