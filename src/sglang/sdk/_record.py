"""Small frozen value classes, and generics, without :mod:`dataclasses` or :mod:`typing`.

Selecting a platform imports a handful of value classes (an entry point, a
runtime table, an operation); defining them with :mod:`dataclasses` would
import :mod:`inspect`, :mod:`ast` and :mod:`re` on the way to
``current_platform``, and :mod:`typing` costs about as much again.
:class:`Record` gives a subclass what ``@dataclass(frozen=True)`` gives
(``__init__`` from the annotated fields in order, defaults, ``==``,
``hash``, ``repr``, no assignment) and, through ``dataclass_transform``,
type checkers see exactly that. :class:`Generic` and :data:`T` stand in
for :class:`typing.Generic` and a type variable at run time only.

Internal: the engine uses it too; vendors use the classes, not this module.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar, Generic, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object) -> object:
        """Run-time stand-in: type checkers read the real decorator."""
        return lambda target: target

    class Generic:
        """Run-time stand-in for :class:`typing.Generic`: ``Cls[X]`` is ``Cls``."""

        __slots__ = ()

        def __class_getitem__(cls, _params: object) -> type:
            return cls

    T = "T"

__all__ = ["Generic", "Record", "T"]


@dataclass_transform(frozen_default=True)
class Record:
    """Base of frozen value classes: fields are the class's annotated names, in order.

    A field with a class-level value has that default. Instances compare
    equal when they are of the same class with equal fields, hash by their
    fields, and refuse assignment (:class:`AttributeError`). A
    ``__post_init__`` method, when the class has one, runs after the fields
    are set (to validate them), as with :mod:`dataclasses`.
    """

    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        annotations: dict[str, object] = dict(vars(cls).get("__annotations__", {}))
        own = [name for name, kind in annotations.items() if "ClassVar" not in str(kind)]
        fields = (*cls._fields, *(name for name in own if name not in cls._fields))
        defaults = {name: getattr(cls, name) for name in fields if hasattr(cls, name)}
        params = ", ".join(
            f"{name}=_defaults[{name!r}]" if name in defaults else name for name in fields
        )
        body = "".join(f"    _set(self, {name!r}, {name})\n" for name in fields) or "    pass\n"
        if hasattr(cls, "__post_init__"):
            body += "    self.__post_init__()\n"
        module = sys.modules.get(cls.__module__)
        namespace: dict[str, object] = dict(vars(module)) if module is not None else {}
        namespace.update(_set=object.__setattr__, _defaults=defaults)
        exec(f"def __init__(self, {params}) -> None:\n{body}", namespace)
        init = namespace["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
        init.__annotations__ = {
            **{name: _annotation(cls, name) for name in fields},
            "return": "None",
        }
        type.__setattr__(cls, "__init__", init)
        cls._fields = fields

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _annotation(cls: type, name: str) -> object:
    for klass in cls.__mro__:
        found = vars(klass).get("__annotations__", {})
        if name in found:
            return found[name]
    return "object"
