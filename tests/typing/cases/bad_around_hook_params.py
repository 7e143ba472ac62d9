"""An AROUND hook must take the original and then exactly the target's parameters."""

from __future__ import annotations

from collections.abc import Callable

from sglang.sdk import AroundHook


def scale(x: float, factor: int) -> float:
    return x * factor


def drops_factor(original: Callable[[float], float], x: float) -> float:
    return original(x)


def wrong_factor_type(original: Callable[[float, str], float], x: float, factor: str) -> float:
    return original(x, factor)


def forgets_original(x: float, factor: int) -> float:
    return x * factor


around_arity: AroundHook[[float, int], float] = drops_factor  # expect-error
around_types: AroundHook[[float, int], float] = wrong_factor_type  # expect-error
around_no_original: AroundHook[[float, int], float] = forgets_original  # expect-error
