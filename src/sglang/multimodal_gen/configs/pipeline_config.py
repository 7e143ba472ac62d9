"""``PipelineConfig``: how the pipeline is built (standard-library types only)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DTYPES", "PipelineConfig"]

DTYPES = ("float32", "bfloat16", "float16")
"""The accepted pipeline dtypes."""


@dataclass(frozen=True)
class PipelineConfig:
    """Settings of the text-to-image pipeline that are not per request.

    Attributes:
        dtype: The dtype of the transformer's weights and activations (the
            text encoder and the decoder run in float32).
        flow_shift: Overrides the scheduler config's ``shift`` when set.
        text_max_length: Overrides the text encoder's ``max_length`` when set.
    """

    dtype: str = "float32"
    flow_shift: float | None = None
    text_max_length: int | None = None

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"PipelineConfig.dtype must be one of {DTYPES}, got {self.dtype!r}")
        if self.flow_shift is not None and self.flow_shift <= 0:
            raise ValueError(f"PipelineConfig.flow_shift must be positive, got {self.flow_shift}")
