"""Fixtures of the diffusion tests: one tiny model per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diffusion.support import make_tiny_model


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny diffusers-layout model, written once by ``make_diffusion_model``."""
    return make_tiny_model(tmp_path_factory.mktemp("diffusion") / "tiny")
