"""A VAE-style decoder: latents to RGB pixels through upsampling convolutions."""

from __future__ import annotations

from collections.abc import Mapping

import torch

__all__ = ["VAEDecoder"]


class VAEDecoder(torch.nn.Module):
    """Decode ``[batch, latent_channels, h, w]`` latents to ``[batch, 3, h*2^n, w*2^n]`` in [-1, 1].

    Args:
        config: ``latent_channels``, ``block_out_channels`` (one upsampling
            stage per entry), ``scaling_factor``.
    """

    def __init__(self, config: Mapping[str, object]) -> None:
        super().__init__()
        channels = [int(c) for c in config["block_out_channels"]]  # type: ignore[attr-defined]
        self.scaling_factor = float(config.get("scaling_factor", 1.0))  # type: ignore[arg-type]
        self.conv_in = torch.nn.Conv2d(int(config["latent_channels"]), channels[0], 3, padding=1)  # type: ignore[call-overload]
        stages = []
        for before, after in zip(channels, [*channels[1:], channels[-1]], strict=True):
            stages.append(torch.nn.Conv2d(before, after, 3, padding=1))
        self.stages = torch.nn.ModuleList(stages)
        self.conv_out = torch.nn.Conv2d(channels[-1], 3, 3, padding=1)

    @property
    def upscale(self) -> int:
        """Pixels per latent along each side."""
        return int(2 ** len(self.stages))

    def forward(self, latents: torch.Tensor) -> torch.Tensor:
        """Decode *latents* (divided by ``scaling_factor`` first)."""
        h = torch.nn.functional.silu(self.conv_in(latents / self.scaling_factor))
        for conv in self.stages:
            h = torch.nn.functional.interpolate(h, scale_factor=2.0, mode="nearest")
            h = torch.nn.functional.silu(conv(h))
        return torch.tanh(self.conv_out(h))
