"""Reading a diffusers-layout model directory: ``model_index.json`` and one folder per component."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from sglang.multimodal_gen.runtime.models import ARCHITECTURES

__all__ = ["COMPONENTS", "ModelLayout", "load_weights", "read_layout"]

COMPONENTS = ("text_encoder", "transformer", "vae")
"""The component folders the pipeline needs (besides ``scheduler``)."""


@dataclass(frozen=True)
class ModelLayout:
    """What a model directory holds.

    Attributes:
        root: The model directory.
        index: ``model_index.json``.
        configs: Each component's ``config.json``.
        scheduler: ``scheduler/scheduler_config.json``.
    """

    root: Path
    index: dict[str, Any]
    configs: dict[str, dict[str, Any]]
    scheduler: dict[str, Any]

    def architecture(self, component: str) -> str:
        """The ``_class_name`` of *component*."""
        return str(self.configs[component].get("_class_name", ""))


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: not a diffusers-layout model directory")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def read_layout(model_path: str) -> ModelLayout:
    """Read the layout of *model_path*.

    Raises:
        FileNotFoundError: A required file is missing (the message names it).
        ValueError: A component names an architecture this runtime does not have.
    """
    root = Path(model_path)
    index = _json(root / "model_index.json")
    configs = {name: _json(root / name / "config.json") for name in COMPONENTS}
    for name, config in configs.items():
        arch = str(config.get("_class_name", ""))
        if arch not in ARCHITECTURES:
            raise ValueError(
                f"{root / name / 'config.json'} names the architecture {arch!r}; this runtime "
                f"has {', '.join(sorted(ARCHITECTURES))}"
            )
    return ModelLayout(root, index, configs, _json(root / "scheduler" / "scheduler_config.json"))


def load_weights(module: torch.nn.Module, folder: Path) -> None:
    """Load every ``*.safetensors`` file of *folder* into *module* (strictly)."""
    from safetensors.torch import load_file

    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"{folder} holds no *.safetensors weights")
    state: dict[str, torch.Tensor] = {}
    for file in files:
        state.update(load_file(str(file)))
    module.load_state_dict(state, strict=True)
