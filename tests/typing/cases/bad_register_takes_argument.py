"""General-plugin entry points are called without arguments and return None."""

from __future__ import annotations

from sglang.sdk import GeneralPluginCallback


def register(registry: object) -> None:
    print(registry)


def register_returns_flag() -> bool:
    return True


callback: GeneralPluginCallback = register  # expect-error
flagged: GeneralPluginCallback = register_returns_flag  # expect-error
