"""How the engine reads its environment variables.

Both the platform selector and the plugin loader read ``SGLANG_PLUGINS``;
both runtimes read boolean flags. The parsing rules live here once, in a
module that imports nothing, so every reader agrees.
"""

from __future__ import annotations

__all__ = ["FLAG_FALSE", "FLAG_TRUE", "EnvironmentValueError", "parse_allowlist", "read_flag"]

FLAG_TRUE = ("1", "true", "yes", "on")
"""Spellings of a boolean variable that switch it on (any case, surrounding spaces ignored)."""

FLAG_FALSE = ("0", "false", "no", "off", "")
"""Spellings that switch it off; an unset variable is off too."""


class EnvironmentValueError(ValueError):
    """An environment variable holds a value its reader does not accept."""


def parse_allowlist(value: str | None) -> frozenset[str] | None:
    """Parse a comma-separated allowlist such as ``SGLANG_PLUGINS``.

    Returns ``None`` when the variable is unset (everything is allowed); a
    variable that is set but empty (or only commas) allows nothing.
    """
    if value is None:
        return None
    return frozenset(item.strip() for item in value.split(",") if item.strip())


def read_flag(name: str, value: str | None) -> bool:
    """Read the boolean variable *name* whose value is *value* (``None``: unset, off).

    Raises:
        EnvironmentValueError: *value* is none of :data:`FLAG_TRUE` or
            :data:`FLAG_FALSE`; the message names the variable and the
            accepted spellings.
    """
    if value is None:
        return False
    word = value.strip().lower()
    if word in FLAG_TRUE:
        return True
    if word in FLAG_FALSE:
        return False
    raise EnvironmentValueError(
        f"{name}={value!r} is not a boolean: the accepted spellings are "
        f"{', '.join(FLAG_TRUE)} (enable) and {', '.join(FLAG_FALSE[:-1])} or an empty "
        f"value (disable), in any case.\n"
        f"Fix: set {name} to one of them, or unset it."
    )
