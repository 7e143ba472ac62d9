"""The override rule of a type checker, applied at run time, and runtime type conformance.

:func:`override_problems` says how an override's parameters break the
base's (a parameter dropped or made required, a new required parameter;
it is ``sglang plugins check``'s, from :mod:`sglang.runtime.checks.signatures`);
:func:`return_problem` compares return annotations where both resolve at
run time; :func:`conforms` checks a value against a resolved annotation.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping

from sglang.runtime.checks.signatures import override_problems

__all__ = ["conforms", "override_problems", "resolved_return", "return_problem"]


def _namespace() -> dict[str, object]:
    """Names the sdk's annotations use but import only for type checkers."""
    import contextlib

    import torch

    from sglang.sdk import srt_runtime

    names: dict[str, object] = {
        "torch": torch,
        "AbstractContextManager": contextlib.AbstractContextManager,
    }
    names.update({name: getattr(srt_runtime, name) for name in srt_runtime.__all__})
    return names


def resolved_return(function: Callable[..., object]) -> tuple[bool, object]:
    """``(True, annotation)`` if *function*'s return annotation resolves, else ``(False, None)``."""
    try:
        hints = typing.get_type_hints(function, localns=_namespace())
    except Exception:
        return False, None
    if "return" not in hints:
        return False, None
    return True, hints["return"]


def _members(annotation: object) -> tuple[object, ...]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(annotation)
    return (annotation,)


def _is_subtype(ours: object, theirs: object) -> bool:
    if theirs is typing.Any or ours is typing.Any or ours == theirs:
        return True
    if ours is type(None) or theirs is type(None):
        return ours is theirs
    their_origin, our_origin = typing.get_origin(theirs), typing.get_origin(ours)
    if their_origin is not None or our_origin is not None:
        mine_base = our_origin or ours
        their_base = their_origin or theirs
        if not (isinstance(mine_base, type) and isinstance(their_base, type)):
            return True  # a form this checker does not model: not judged
        if not issubclass(mine_base, their_base):
            return False
        if their_origin is type and our_origin is type:
            return all(
                _subtype(a, b)
                for a, b in zip(typing.get_args(ours), typing.get_args(theirs), strict=False)
            )
        return True
    if isinstance(ours, type) and isinstance(theirs, type):
        if getattr(theirs, "_is_protocol", False):
            return True  # structural: the SUB clauses check the members
        if theirs is float and ours is int:
            return True  # the numeric tower
        return issubclass(ours, theirs)
    return True


def _subtype(ours: object, theirs: object) -> bool:
    return all(
        any(_is_subtype(mine, their) for their in _members(theirs)) for mine in _members(ours)
    )


def return_problem(base: Callable[..., object], override: Callable[..., object]) -> str | None:
    """Why *override*'s resolvable return annotation is not the base's or a subtype, if so."""
    known, theirs = resolved_return(base)
    mine_known, ours = resolved_return(override)
    if not known or not mine_known:
        return None
    if _subtype(ours, theirs):
        return None
    return f"returns {ours!r}, which is not the base's {theirs!r} or a subtype of it"


def conforms(value: object, annotation: object) -> bool:
    """Whether *value* is of type *annotation* (unmodelled forms count as conforming)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return any(conforms(value, member) for member in typing.get_args(annotation))
    if annotation is type(None) or annotation is None:
        return value is None
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if origin is type:
        return isinstance(value, type)
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(item, args[0]) for item in value)
        return len(args) == len(value) and all(
            conforms(v, a) for v, a in zip(value, args, strict=True)
        )
    if origin is not None and isinstance(origin, type):
        if origin is Mapping or issubclass(origin, Mapping):
            return isinstance(value, Mapping)
        try:
            return isinstance(value, origin)
        except TypeError:
            return True
    if isinstance(annotation, type):
        if getattr(annotation, "_is_protocol", False):
            return True
        try:
            return isinstance(value, annotation)
        except TypeError:
            return True
    return True
