"""How the engine reads its environment variables.

Both the platform selector and the plugin loader read ``SGLANG_PLUGINS``;
both runtimes read boolean flags. The parsing rules live here once, in a
module that imports nothing, so every reader agrees.
"""

from __future__ import annotations

__all__ = ["is_truthy", "parse_allowlist"]

_TRUE = frozenset({"1", "true", "yes", "on"})


def parse_allowlist(value: str | None) -> frozenset[str] | None:
    """Parse a comma-separated allowlist such as ``SGLANG_PLUGINS``.

    Returns ``None`` when the variable is unset (everything is allowed); a
    variable that is set but empty (or only commas) allows nothing.
    """
    if value is None:
        return None
    return frozenset(item.strip() for item in value.split(",") if item.strip())


def is_truthy(value: str | None) -> bool:
    """Whether a flag variable is on: ``1``, ``true``, ``yes`` or ``on`` (any case)."""
    return value is not None and value.strip().lower() in _TRUE
