"""What platform selection produces: the mode, each callback's status, the selection.

The vocabulary every other selection module shares. It imports nothing of
the selection package, so the record, the report, the errors and the
engine all build on it without importing each other in a loop.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

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


class Selected(NamedTuple):
    """A selected platform (a named tuple: cheap to define at import time).

    ``platform`` is the platform instance, ``dist_name`` the distribution
    that provided it (``None`` for a built-in), ``dist`` that
    distribution's ``"name version"`` and ``entry_point`` the plugin's
    entry-point name, for messages.
    """

    platform: object
    dist_name: str | None
    dist: str | None = None
    entry_point: str | None = None
