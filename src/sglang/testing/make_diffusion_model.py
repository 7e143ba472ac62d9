"""Write a small random text-to-image model in the diffusers directory layout.

::

    python -m sglang.testing.make_diffusion_model /tmp/tiny-diffusion [--force]

The directory holds ``model_index.json``, ``scheduler/scheduler_config.json``
and ``text_encoder/``, ``transformer/``, ``vae/`` (each ``config.json`` plus
``model.safetensors``). The weights are random but seeded: the same seed
writes the same bytes. Writing builds the components, so the diffusion
platform of this process is selected (the CPU unless a plugin or an
accelerator is found).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

__all__ = ["CONFIGS", "main", "make_diffusion_model"]

CONFIGS: Mapping[str, Mapping[str, object]] = MappingProxyType(
    {
        "text_encoder": {
            "_class_name": "SGLangTinyTextEncoder",
            "hidden_size": 32,
            "max_length": 16,
        },
        "transformer": {
            "_class_name": "SGLangTinyDiT",
            "in_channels": 4,
            "patch_size": 2,
            "hidden_size": 32,
            "num_attention_heads": 4,
            "num_layers": 2,
            "text_dim": 32,
            "mlp_ratio": 2,
        },
        "vae": {
            "_class_name": "SGLangTinyVAEDecoder",
            "latent_channels": 4,
            "block_out_channels": [16, 16, 8],
            "scaling_factor": 1.0,
        },
        "scheduler": {
            "_class_name": "FlowMatchEulerDiscreteScheduler",
            "num_train_timesteps": 1000,
            "shift": 1.0,
        },
    }
)
"""Each component's ``config.json`` (``scheduler``: ``scheduler_config.json``)."""

_INDEX = {
    "_class_name": "SGLangTinyTextToImagePipeline",
    "_diffusers_version": "0.30.0",
    "scheduler": ["diffusers", "FlowMatchEulerDiscreteScheduler"],
    "text_encoder": ["sglang", "SGLangTinyTextEncoder"],
    "transformer": ["sglang", "SGLangTinyDiT"],
    "vae": ["sglang", "SGLangTinyVAEDecoder"],
}


_VAE_GAIN = 2.0


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def make_diffusion_model(directory: str | Path, *, seed: int = 0, force: bool = False) -> Path:
    """Write the model to *directory* (created) and return its path.

    Raises:
        FileExistsError: *directory* is not empty and *force* is false.
    """
    import torch
    from safetensors.torch import save_file

    from sglang.multimodal_gen.runtime.layers.attention.selector import TorchSDPABackend
    from sglang.multimodal_gen.runtime.models.dit import DiffusionTransformer
    from sglang.multimodal_gen.runtime.models.text_encoder import TextEncoder
    from sglang.multimodal_gen.runtime.models.vae import VAEDecoder

    root = Path(directory)
    if root.exists() and any(root.iterdir()) and not force:
        raise FileExistsError(f"{root} is not empty; pass --force to overwrite it")
    root.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    modules: dict[str, torch.nn.Module] = {
        "text_encoder": TextEncoder(CONFIGS["text_encoder"]),
        "transformer": DiffusionTransformer(CONFIGS["transformer"], TorchSDPABackend()),
        "vae": VAEDecoder(CONFIGS["vae"]),
    }
    with torch.no_grad():  # default inits decode to flat grey; make the pixels vary
        for name, param in modules["vae"].named_parameters():
            if name.endswith("weight"):
                param.mul_(_VAE_GAIN)
    _write_json(root / "model_index.json", _INDEX)
    _write_json(root / "scheduler" / "scheduler_config.json", CONFIGS["scheduler"])
    for name, module in modules.items():
        _write_json(root / name / "config.json", CONFIGS[name])
        state = {key: value.detach().contiguous() for key, value in module.state_dict().items()}
        save_file(state, str(root / name / "model.safetensors"))
    return root


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m sglang.testing.make_diffusion_model DIR [--force]``."""
    parser = argparse.ArgumentParser(
        prog="python -m sglang.testing.make_diffusion_model",
        description="Write a small random text-to-image model in the diffusers layout.",
    )
    parser.add_argument("directory", help="Where to write it (created; must be empty).")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the random weights.")
    parser.add_argument("--force", action="store_true", help="Overwrite a non-empty directory.")
    args = parser.parse_args(argv)
    try:
        path = make_diffusion_model(args.directory, seed=args.seed, force=args.force)
    except FileExistsError as exc:
        parser.exit(2, f"error: {exc}\n")
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
