"""A demo out-of-tree SGLang platform: the "demo" device, simulated on host CPU memory.

The package registers one activation callback per runtime (see
``pyproject.toml``). Both are import-safe: they read an environment
variable and return a class qualname, or ``None`` when the device is
unavailable. ``SGLANG_DEMO_DEVICE=0`` switches the device off.
"""

from __future__ import annotations

import os

__all__ = ["DEMO_DEVICE_ENV", "activate", "activate_diffusion", "demo_device_is_available"]

DEMO_DEVICE_ENV = "SGLANG_DEMO_DEVICE"
"""Set to ``0`` to make the demo device unavailable."""


def demo_device_is_available() -> bool:
    """Whether the demo device is present (``SGLANG_DEMO_DEVICE`` is not ``0``)."""
    return os.environ.get(DEMO_DEVICE_ENV, "1").strip() != "0"


def activate() -> str | None:
    """SRT activation callback: the platform class qualname, or ``None``."""
    if demo_device_is_available():
        return "sglang_demo_platform.platform:DemoSRTPlatform"
    return None


def activate_diffusion() -> str | None:
    """Diffusion activation callback: the platform class qualname, or ``None``."""
    if demo_device_is_available():
        return "sglang_demo_platform.diffusion_platform.DemoDiffusionPlatform"
    return None
