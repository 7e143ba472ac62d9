"""An activation callback must return a qualname or None, never an int."""

from __future__ import annotations

from sglang.sdk import PlatformActivator


def activate() -> int:
    return 1


activator: PlatformActivator = activate  # expect-error
