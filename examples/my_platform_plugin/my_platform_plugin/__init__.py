"""The plugin guide's SRT quick start: a platform plugin for ``my_device``.

Step 3 of the quick start, the activation callback. It must stay
import-safe: it runs during platform selection, before any backend is
initialised, so it imports neither torch nor the platform module; it
returns the qualname of the class to activate, or ``None`` to step aside.

``my_device`` is a stand-in that runs on host memory, so the quick start
works on any machine. A stand-in has no driver to ask, so it is present only
when ``MY_DEVICE_AVAILABLE=1`` says so; otherwise the callback steps aside,
as a real plugin does on a machine without its hardware (and does not
collide with another installed platform plugin).
"""

from __future__ import annotations

import os

__all__ = ["AVAILABLE_ENV", "activate"]

AVAILABLE_ENV = "MY_DEVICE_AVAILABLE"
"""Set to ``1`` to make the stand-in ``my_device`` present (else ``activate`` returns ``None``)."""


def _my_device_is_available() -> bool:
    # A real plugin asks its driver here (a cheap probe, no device context).
    return os.environ.get(AVAILABLE_ENV, "").strip() == "1"


def activate() -> str | None:
    """Return the qualified class name to activate, or ``None`` to skip."""
    if _my_device_is_available():
        return "my_platform_plugin.platform.MySRTPlatform"
    return None
