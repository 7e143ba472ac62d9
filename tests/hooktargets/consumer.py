"""Imports targets by name (``from x import f``): sees patches through alias propagation."""

from __future__ import annotations

from tests.hooktargets.basic import Widget, add
from tests.hooktargets.basic import add as plus

__all__ = ["Widget", "add", "build", "plus", "use_add", "use_plus"]


def use_add(x: int, y: int) -> int:
    """Call ``add`` through this module's own binding."""
    return add(x, y)


def use_plus(x: int, y: int) -> int:
    """Call ``add`` through an alias with another name."""
    return plus(x, y)


def build(size: int) -> Widget:
    """Build a ``Widget`` through this module's own binding."""
    return Widget(size)
