"""``sglang.sdk._record``: frozen value classes without :mod:`dataclasses`."""

from __future__ import annotations

import inspect
import pickle
from typing import ClassVar

import pytest

from sglang.sdk._record import Record


class Point(Record):
    """A point (module level, so that pickle finds it)."""

    x: int
    y: int = 0
    label: ClassVar[str] = "not a field"


class Point3(Point):
    z: int = 0


def test_fields_defaults_and_signature() -> None:
    point = Point(1)
    assert (point.x, point.y) == (1, 0)
    assert Point(1, y=2).y == 2
    assert Point._fields == ("x", "y")
    assert list(inspect.signature(Point).parameters) == ["x", "y"]
    assert Point3(1, 2, 3).z == 3
    assert Point3._fields == ("x", "y", "z")
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]


def test_equality_hash_repr_and_pickle() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != Point3(1, 2)
    assert len({Point(1, 2), Point(1, 2), Point(3)}) == 2
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert pickle.loads(pickle.dumps(Point3(1, 2, 3))) == Point3(1, 2, 3)


def test_frozen() -> None:
    point = Point(1)
    with pytest.raises(AttributeError, match="frozen Point"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen Point"):
        del point.x  # pyright: ignore[reportAttributeAccessIssue]
