"""Composing the hooks of one target into the callable that replaces it.

The order, for hooks registered on the same target::

    call(*args, **kwargs)
      -> BEFORE hooks, in registration order (each may replace the arguments)
      -> AROUND hooks, an onion: the first registered is the outermost
           -> REPLACE hook (the last registered one) or the original
      <- AFTER hooks, in registration order (each may replace the result)

The wrappers are specialised for the common shapes so that a call does no
list building and no branching it does not need: a single AROUND hook is
one closure calling ``hook(original, *args, **kwargs)``; inner AROUND links
are :func:`functools.partial` objects (C-level calls); a target with only a
REPLACE hook is the replacement itself. ``async def`` targets get ``async``
wrappers in which BEFORE and AFTER hooks may be sync or async and AFTER
hooks receive the awaited result.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ChainSpec",
    "LabeledHook",
    "build_chain",
    "check_before_result",
    "make_installed",
]

Fn = Callable[..., Any]


@dataclass(frozen=True)
class LabeledHook:
    """A hook callable and the words that name it in an error message."""

    fn: Fn
    label: str


@dataclass(frozen=True)
class ChainSpec:
    """The hooks of one target, split by type, in composition order."""

    original: Fn
    befores: tuple[LabeledHook, ...] = ()
    arounds: tuple[Fn, ...] = ()
    replace: Fn | None = None
    afters: tuple[Fn, ...] = ()
    is_async: bool = False

    @property
    def empty(self) -> bool:
        """Whether no hook applies (the target keeps its original)."""
        return not (self.befores or self.arounds or self.afters) and self.replace is None


def check_before_result(value: object, label: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Validate a BEFORE hook's non-``None`` return value: ``(args, kwargs)``.

    Raises:
        TypeError: naming the hook (and its source, through *label*) when the
            value is not a pair of a tuple (or list) and a dict.
    """
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], tuple | list)
        and isinstance(value[1], dict)
    ):
        args, kwargs = value
        return tuple(args), kwargs
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise TypeError(
        f"{label} returned {type(value).__name__} {shown}; a BEFORE hook must return None "
        "(keep the arguments) or a pair (args, kwargs) of a tuple and a dict"
    )


def build_chain(spec: ChainSpec) -> Fn:
    """Return the callable that runs *spec*'s hooks around its original.

    Raises:
        ValueError: if *spec* has no hooks (:attr:`ChainSpec.empty`).
    """
    if spec.empty:
        raise ValueError("build_chain needs at least one hook")
    if spec.is_async:
        return _build_async(spec)
    return _build_sync(spec)


# -- sync ---------------------------------------------------------------------


def _build_sync(spec: ChainSpec) -> Fn:
    core = spec.replace if spec.replace is not None else spec.original
    if not (spec.befores or spec.arounds or spec.afters):
        return core
    inner = core
    arounds = spec.arounds
    if arounds:
        for hook in reversed(arounds[1:]):
            inner = functools.partial(hook, inner)
        if not spec.befores and not spec.afters:
            return _around(arounds[0], inner)
        inner = functools.partial(arounds[0], inner)
    if len(spec.befores) == 1 and not spec.afters:
        return _single_before(spec.befores[0], inner)
    if not spec.befores and len(spec.afters) == 1:
        return _single_after(spec.afters[0], inner)
    return _general(spec.befores, inner, spec.afters)


def _around(hook: Fn, inner: Fn) -> Fn:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return hook(inner, *args, **kwargs)

    return wrapper


def _single_before(before: LabeledHook, inner: Fn) -> Fn:
    hook, label = before.fn, before.label

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        changed = hook(*args, **kwargs)
        if changed is not None:
            args, kwargs = check_before_result(changed, label)
        return inner(*args, **kwargs)

    return wrapper


def _single_after(hook: Fn, inner: Fn) -> Fn:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = inner(*args, **kwargs)
        changed = hook(result, *args, **kwargs)
        return result if changed is None else changed

    return wrapper


def _general(befores: Sequence[LabeledHook], inner: Fn, afters: Sequence[Fn]) -> Fn:
    before_pairs = tuple((b.fn, b.label) for b in befores)
    after_fns = tuple(afters)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for hook, label in before_pairs:
            changed = hook(*args, **kwargs)
            if changed is not None:
                args, kwargs = check_before_result(changed, label)
        result = inner(*args, **kwargs)
        for after in after_fns:
            replaced = after(result, *args, **kwargs)
            if replaced is not None:
                result = replaced
        return result

    return wrapper


# -- async --------------------------------------------------------------------


def _as_async(fn: Fn) -> Fn:
    """Return *fn* if it is ``async def``; else an ``async`` adapter awaiting its result."""
    if inspect.iscoroutinefunction(fn):
        return fn

    async def adapter(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result

    return adapter


def _async_link(hook: Fn, inner: Fn) -> Fn:
    async def link(*args: Any, **kwargs: Any) -> Any:
        result = hook(inner, *args, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result

    return link


def _build_async(spec: ChainSpec) -> Fn:
    core = _as_async(spec.replace) if spec.replace is not None else _as_async(spec.original)
    inner = core
    for hook in reversed(spec.arounds):
        inner = _async_link(hook, inner)
    if not spec.befores and not spec.afters:
        return inner
    before_pairs = tuple((b.fn, b.label) for b in spec.befores)
    after_fns = spec.afters
    chained = inner

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        for hook, label in before_pairs:
            changed = hook(*args, **kwargs)
            if inspect.isawaitable(changed):
                changed = await changed
            if changed is not None:
                args, kwargs = check_before_result(changed, label)
        result = await chained(*args, **kwargs)
        for after in after_fns:
            replaced = after(result, *args, **kwargs)
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if replaced is not None:
                result = replaced
        return result

    return wrapper


def make_installed(spec: ChainSpec) -> Fn:
    """Build the chain and give it the original's name, docstring and ``__wrapped__``.

    A REPLACE-only chain is the replacement itself and is returned untouched.
    For a class- or staticmethod, *spec*'s original is the plain function
    (``__func__``; for a classmethod it takes ``cls`` first, so every hook
    receives ``cls`` first, as method hooks receive ``self``) and the caller
    wraps the result in :class:`classmethod` or :class:`staticmethod` again.
    """
    chain = build_chain(spec)
    if chain is not spec.replace:
        functools.update_wrapper(chain, spec.original)
    return chain
