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
from typing import Any, Concatenate, Generic, ParamSpec, TypeAlias, TypeVar, overload

__all__ = [
    "AfterHook",
    "AroundHook",
    "BeforeHook",
    "BeforeResult",
    "ClassmethodTarget",
    "HookTarget",
    "HookType",
    "ReplaceHook",
    "hook_target",
]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


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


class ClassmethodTarget(HookTarget[Concatenate[type[T], P], R], Generic[T, P, R]):
    """A typed target for a classmethod ``(cls: type[T], *P) -> R`` of class ``T``.

    Its hooks receive ``cls`` first, the class the call was made on (a
    subclass of ``T`` included). Build one with
    ``hook_target(Cls.method, cls=Cls)``; it is accepted wherever a
    :class:`HookTarget` is, as a ``HookTarget[Concatenate[type[T], P], R]``.
    The registries' decorator form has overloads of its own for it, so that
    both type checkers check the decorated hook against it.
    """


@overload
def hook_target(target: Callable[P, R]) -> HookTarget[P, R]: ...


@overload
def hook_target(target: Callable[P, R], *, cls: type[T]) -> ClassmethodTarget[T, P, R]: ...


def hook_target(target: Callable[..., object], *, cls: type | None = None) -> HookTarget[..., Any]:
    """Describe an imported callable as a typed :class:`HookTarget`.

    The path comes from the object's ``__module__`` and ``__qualname__``;
    nothing is imported or patched. Hooks receive what the function in the
    class body receives, so a method target is the function taken from the
    class (``hook_target(Worker.forward)``: hooks receive ``self`` first).

    A classmethod's hooks receive ``cls`` first, which the bound method
    ``Worker.create`` does not show; describe it with the class it is hooked
    on: ``hook_target(Worker.create, cls=Worker)`` is a
    :class:`ClassmethodTarget` ``[Worker, P, R]`` (a
    ``HookTarget[Concatenate[type[Worker], P], R]``) for a classmethod
    ``create(cls, *P) -> R``, with the path ``"<module>.Worker.create"``,
    for a classmethod inherited from a base class too (then the hooks are
    installed on ``Worker`` itself, the base is left alone).

    Args:
        target: A module-level function, a class, a function taken from a
            class, or (with *cls*) a classmethod bound to *cls*.
        cls: For a classmethod, the class it is hooked on.

    Raises:
        TypeError: if *target* has no importable dotted path (a lambda or a
            function defined inside another function); if *target* is a
            classmethod and *cls* is missing; if *cls* is given and *target*
            is not a classmethod bound to *cls*.
    """
    bound_to = getattr(target, "__self__", None)
    name = getattr(target, "__name__", "?")
    if cls is not None:
        if bound_to is not cls:
            raise TypeError(
                f"hook_target({target!r}, cls={cls.__qualname__}) describes a classmethod "
                f"of {cls.__qualname__}: pass it as {cls.__qualname__}.{name}"
            )
        typed: ClassmethodTarget[object, ..., Any] = ClassmethodTarget(
            f"{_dotted_path(cls)}.{name}"
        )
        return typed
    if isinstance(bound_to, type):
        raise TypeError(
            f"{bound_to.__qualname__}.{name} is a classmethod: its hooks receive cls first, so "
            f"describe it with hook_target({bound_to.__qualname__}.{name}, "
            f"cls={bound_to.__qualname__})"
        )
    return HookTarget(_dotted_path(target))


def _dotted_path(obj: object) -> str:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        raise TypeError(
            f"{obj!r} has no importable dotted path; "
            "hook targets must be module-level functions, classes or their methods"
        )
    return f"{module}.{qualname}"
