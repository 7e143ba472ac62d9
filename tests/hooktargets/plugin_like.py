"""A module shaped like a plugin: imports its target by name and subclasses it.

Alias propagation must leave this module's own ``Widget`` and ``add`` alone
(it defines the hooks), so ``Widget`` here keeps naming the original class.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.hooktargets.basic import Widget, add

__all__ = ["BigWidget", "Widget", "add", "around_add", "original_widget"]


class BigWidget(Widget):
    """Replaces :class:`~tests.hooktargets.basic.Widget`."""

    def describe(self) -> str:
        """Describe it as big."""
        return "big " + super().describe()


def around_add(original: Callable[[int, int], int], x: int, y: int) -> int:
    """AROUND hook on ``add`` that also calls this module's own ``add`` (the original)."""
    return original(x, y) + add(0, 0) * 0 + 1000


def original_widget() -> type[Widget]:
    """What this module's ``Widget`` name is bound to."""
    return Widget
