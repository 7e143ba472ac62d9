"""Hook types and the typed signatures of hooks.

A hook is registered against a *target* (a function, method or class named
by a dotted path) and a :class:`HookType`. The aliases below spell out, for a
target of type ``Callable[P, R]``, the signature each hook type must have,
so that mypy and pyright check a hook against its target::

    from sglang.sdk import AroundHook

    def scale(x: float, factor: int) -> float: ...

    def timed(original: Callable[[float, int], float], x: float, factor: int) -> float:
        return original(x, factor)

    checked: AroundHook[[float, int], float] = timed  # verified by the checkers

:func:`hook_target` turns an imported callable into a :class:`HookTarget`
that carries ``P`` and ``R``; the registries accept it wherever they accept a
dotted path, and then check the hook's signature against the target's.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Concatenate, Generic, ParamSpec, TypeAlias, TypeVar

__all__ = [
    "AfterHook",
    "AroundHook",
    "BeforeHook",
    "BeforeResult",
    "HookTarget",
    "HookType",
    "ReplaceHook",
    "hook_target",
]

P = ParamSpec("P")
R = TypeVar("R")


class HookType(enum.Enum):
    """How a hook combines with its target."""

    BEFORE = "before"
    """Runs first; returns ``None`` (keep the arguments) or ``(args, kwargs)``."""

    AFTER = "after"
    """Runs last with ``(result, *args, **kwargs)``; returns ``None`` (keep) or a new result."""

    AROUND = "around"
    """Receives ``(original_fn, *args, **kwargs)`` and must call ``original_fn`` itself."""

    REPLACE = "replace"
    """Replaces the target function, or the target class (the only type accepting a class)."""


BeforeResult: TypeAlias = "tuple[tuple[object, ...], dict[str, object]] | None"
"""What a BEFORE hook returns: ``None`` to keep the arguments, or ``(args, kwargs)``."""

BeforeHook: TypeAlias = Callable[P, BeforeResult]
"""A BEFORE hook for a target ``Callable[P, R]``: ``BeforeHook[P]``."""

AfterHook: TypeAlias = Callable[Concatenate[R, P], "R | None"]
"""An AFTER hook for a target ``Callable[P, R]``: ``AfterHook[R, P]`` (result first)."""

AroundHook: TypeAlias = Callable[Concatenate[Callable[P, R], P], R]
"""An AROUND hook for a target ``Callable[P, R]``: ``AroundHook[P, R]``."""

ReplaceHook: TypeAlias = Callable[P, R]
"""A REPLACE hook for a function target ``Callable[P, R]``: ``ReplaceHook[P, R]``."""


@dataclass(frozen=True)
class HookTarget(Generic[P, R]):
    """A hook target that remembers the target's parameter and return types.

    Build one with :func:`hook_target`; :attr:`path` is the dotted path that
    the registries resolve and patch.
    """

    path: str
    """The dotted path of the target, for example ``"pkg.mod.Cls.meth"``."""


def hook_target(target: Callable[P, R]) -> HookTarget[P, R]:
    """Describe an imported callable as a typed :class:`HookTarget`.

    The path comes from the object's ``__module__`` and ``__qualname__``;
    nothing is imported or patched.

    Raises:
        TypeError: if *target* has no importable dotted path (a lambda or a
            function defined inside another function).
    """
    module = getattr(target, "__module__", None)
    qualname = getattr(target, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        raise TypeError(
            f"{target!r} has no importable dotted path; "
            "hook targets must be module-level functions, classes or their methods"
        )
    return HookTarget(f"{module}.{qualname}")
