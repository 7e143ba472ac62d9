"""``SamplingParams``: what one generation call asks for (standard-library types only)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SamplingParams"]


@dataclass(frozen=True)
class SamplingParams:
    """Parameters of one text-to-image generation.

    Attributes:
        seed: Seed of the initial noise; equal seeds give bit-identical images.
        height: Image height in pixels (a multiple of the model's pixel stride).
        width: Image width in pixels (a multiple of the model's pixel stride).
        num_inference_steps: Euler steps of the flow-matching sampler.
        guidance_scale: Classifier-free guidance scale; ``1.0`` turns guidance off.
        negative_prompt: The prompt guidance steers away from.
    """

    seed: int = 1024
    height: int = 64
    width: int = 64
    num_inference_steps: int = 8
    guidance_scale: float = 1.0
    negative_prompt: str = ""

    def __post_init__(self) -> None:
        checks = (
            ("seed", isinstance(self.seed, int) and self.seed >= 0, "a non-negative int"),
            ("height", isinstance(self.height, int) and self.height > 0, "a positive int"),
            ("width", isinstance(self.width, int) and self.width > 0, "a positive int"),
            (
                "num_inference_steps",
                isinstance(self.num_inference_steps, int) and 0 < self.num_inference_steps <= 1000,
                "an int in [1, 1000]",
            ),
            (
                "guidance_scale",
                isinstance(self.guidance_scale, (int, float)) and self.guidance_scale >= 1.0,
                "a number >= 1",
            ),
            ("negative_prompt", isinstance(self.negative_prompt, str), "a str"),
        )
        for name, ok, rule in checks:
            if not ok:
                raise ValueError(
                    f"sampling parameter {name} must be {rule}, got {getattr(self, name)!r}"
                )

    @classmethod
    def from_value(cls, value: SamplingParams | Mapping[str, object] | None) -> SamplingParams:
        """Return *value* as a :class:`SamplingParams` (a dict's keys are field names).

        Raises:
            ValueError: An unknown key or a bad value (the message names it).
            TypeError: *value* is neither a ``SamplingParams``, a mapping nor ``None``.
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(f"sampling_params must be a SamplingParams or a dict, got {value!r}")
        names = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(str(key) for key in value if key not in names)
        if unknown:
            raise ValueError(
                f"unknown sampling parameters {unknown}; known: {', '.join(sorted(names))}"
            )
        return cls(**{str(key): item for key, item in value.items()})  # type: ignore[arg-type]
