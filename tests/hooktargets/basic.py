"""Functions, methods and classes of every kind the hook engine supports.

Every callable takes an ``int`` last and returns an ``int``, so one set of
generic hooks exercises them all.
"""

from __future__ import annotations

import asyncio


def add(x: int, y: int) -> int:
    """Return ``x + y``."""
    return x + y


async def fetch(x: int) -> int:
    """Async: return ``x * 10`` after yielding once."""
    await asyncio.sleep(0)
    return x * 10


class Base:
    """A base class whose members a subclass inherits."""

    factor = 3

    def __init__(self, value: int = 1) -> None:
        self.value = value

    def method(self, x: int) -> int:
        """Return ``self.value + x``."""
        return self.value + x

    @classmethod
    def scaled(cls, x: int) -> int:
        """Return ``cls.factor * x`` (depends on the calling class)."""
        return cls.factor * x

    @classmethod
    def create(cls, value: int) -> Base:
        """Build an instance of the calling class (a factory subclasses inherit)."""
        return cls(value)

    @staticmethod
    def double(x: int) -> int:
        """Return ``2 * x``."""
        return 2 * x

    async def amethod(self, x: int) -> int:
        """Async method: ``self.value * x``."""
        await asyncio.sleep(0)
        return self.value * x

    @classmethod
    async def ascaled(cls, x: int) -> int:
        """Async classmethod: ``cls.factor * x``."""
        await asyncio.sleep(0)
        return cls.factor * x


class Child(Base):
    """Inherits every member of :class:`Base`."""

    factor = 5


class Outer:
    """Holds a nested class."""

    class Inner:
        """A nested class."""

        def ping(self, x: int) -> int:
            """Return ``x + 100``."""
            return x + 100


class Widget:
    """A class to replace."""

    def __init__(self, size: int = 1) -> None:
        self.size = size

    def describe(self) -> str:
        """Return a description."""
        return f"widget {self.size}"


def make_widget(size: int) -> Widget:
    """Build a :class:`Widget` through the module-level name (sees a replacement)."""
    return Widget(size)
