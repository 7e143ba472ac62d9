"""Messages between the generator and its workers (plain data, pickled over the pipe)."""

from __future__ import annotations

from dataclasses import dataclass

from sglang.multimodal_gen.configs.sampling_params import SamplingParams

__all__ = ["GenerateRequest", "GenerateResult", "ShutdownRequest"]


@dataclass(frozen=True)
class GenerateRequest:
    """Generate one image per prompt (sent to every rank)."""

    rid: int
    prompts: tuple[str, ...]
    params: SamplingParams


@dataclass(frozen=True)
class GenerateResult:
    """A rank's answer: the images (rank 0 only) or the error text."""

    rid: int
    images: tuple[tuple[int, int, bytes], ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class ShutdownRequest:
    """Stop the worker loop and exit."""
