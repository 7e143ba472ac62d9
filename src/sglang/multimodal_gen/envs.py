"""The environment variables SGLang Diffusion reads (import-safe: reads nothing at import).

Each name is a constant; :func:`get` reads one now.
"""

from __future__ import annotations

import os
from typing import Final

from sglang.sdk.constants import ENV_DIFFUSION_PLATFORM_OVERRIDE, ENV_PLUGINS

__all__ = [
    "SGLANG_DIFFUSION_PLATFORM_OVERRIDE",
    "SGLANG_DIFFUSION_START_TIMEOUT",
    "SGLANG_PLUGINS",
    "get",
    "start_timeout",
]

SGLANG_DIFFUSION_PLATFORM_OVERRIDE: Final = ENV_DIFFUSION_PLATFORM_OVERRIDE
"""Selects the diffusion platform by name (a built-in or a plugin's entry-point name)."""

SGLANG_PLUGINS: Final = ENV_PLUGINS
"""Comma-separated allowlist of general plugins (both runtimes)."""

SGLANG_DIFFUSION_START_TIMEOUT: Final = "SGLANG_DIFFUSION_START_TIMEOUT"
"""Seconds the generator waits for its workers to be ready (default 600)."""


def get(name: str, default: str | None = None) -> str | None:
    """Return environment variable *name* now (``default`` when unset)."""
    return os.environ.get(name, default)


def start_timeout() -> float:
    """Return :data:`SGLANG_DIFFUSION_START_TIMEOUT` as seconds.

    Raises:
        ValueError: It is set but not a positive number.
    """
    raw = os.environ.get(SGLANG_DIFFUSION_START_TIMEOUT, "600")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise ValueError(f"{SGLANG_DIFFUSION_START_TIMEOUT} must be a positive number, got {raw!r}")
    return value
