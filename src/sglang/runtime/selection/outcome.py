"""What platform selection produces: the mode, each callback's status, the selection.

The vocabulary every other selection module shares. It imports nothing of
the selection package, so the record, the report, the errors and the
engine all build on it without importing each other in a loop.
"""

from __future__ import annotations

import enum

__all__ = ["CallbackStatus", "Selected", "SelectionMode"]


class SelectionMode(enum.Enum):
    """How the platform was selected."""

    EXPLICIT = "explicit"
    """The selector variable named a platform plugin's entry point."""

    AUTO = "auto"
    """The selector variable was unset: every installed callback was asked."""

    OVERRIDE_BUILTIN = "override-builtin"
    """The selector variable named a built-in platform (diffusion only): no probing."""


class CallbackStatus(enum.Enum):
    """What one activation callback did."""

    ACTIVATED = "activated"
    """It returned a platform class qualname."""

    DECLINED = "declined"
    """It returned ``None``: its hardware is unavailable."""

    FAILED = "failed"
    """Importing it or calling it raised, or it returned a wrong type."""


class Selected:
    """A selected platform.

    ``platform`` is the platform instance, ``dist_name`` the distribution
    that provided it (``None`` for a built-in), ``dist`` that
    distribution's ``"name version"`` and ``entry_point`` the plugin's
    entry-point name, for messages. A plain class: cheap to define at
    import time, unlike a named tuple or a dataclass.
    """

    __slots__ = ("dist", "dist_name", "entry_point", "platform")

    def __init__(
        self,
        platform: object,
        dist_name: str | None,
        dist: str | None = None,
        entry_point: str | None = None,
    ) -> None:
        self.platform = platform
        self.dist_name = dist_name
        self.dist = dist
        self.entry_point = entry_point

    def __repr__(self) -> str:
        return f"Selected({self.platform!r}, dist={self.dist!r}, entry_point={self.entry_point!r})"
