"""Activation callbacks are called without arguments."""

from __future__ import annotations

from sglang.sdk import PlatformActivator


def activate(device_id: int) -> str | None:
    return None if device_id else "my_platform_plugin.platform.MySRTPlatform"


activator: PlatformActivator = activate  # expect-error
