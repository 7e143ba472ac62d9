"""The flow-matching Euler sampler (``FlowMatchEulerDiscreteScheduler``'s arithmetic)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

__all__ = ["FlowMatchEulerScheduler"]


class FlowMatchEulerScheduler:
    """Integrate ``dx/dsigma = v`` from noise (sigma 1) to the image (sigma 0).

    Args:
        config: ``num_train_timesteps`` and ``shift`` (``scheduler_config.json``).
        shift: Overrides the config's ``shift`` when given.
    """

    def __init__(self, config: Mapping[str, object], shift: float | None = None) -> None:
        self.num_train_timesteps = int(config.get("num_train_timesteps", 1000))  # type: ignore[call-overload]
        self.shift = float(shift if shift is not None else config.get("shift", 1.0))  # type: ignore[arg-type]

    def sigmas(self, steps: int) -> torch.Tensor:
        """The ``steps + 1`` noise levels from 1 down to 0, shifted."""
        sigma = torch.linspace(1.0, 0.0, steps + 1, dtype=torch.float64)
        shifted = self.shift * sigma / (1 + (self.shift - 1) * sigma)
        return shifted.to(torch.float32)

    def timestep(self, sigma: torch.Tensor) -> torch.Tensor:
        """The model's timestep input for noise level *sigma*."""
        result: torch.Tensor = sigma * self.num_train_timesteps
        return result

    @staticmethod
    def step(
        velocity: torch.Tensor, sigma: torch.Tensor, sigma_next: torch.Tensor, x: torch.Tensor
    ) -> torch.Tensor:
        """One Euler step from *sigma* to *sigma_next*."""
        return x + (sigma_next - sigma) * velocity
