"""A hook bound to a typed target through a generic helper is checked against it."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sglang.sdk import AroundHook, HookTarget, hook_target

P = ParamSpec("P")
R = TypeVar("R")


def scale(x: float, factor: int) -> float:
    return x * factor


def register_around(target: HookTarget[P, R], hook: AroundHook[P, R]) -> str:
    return target.path


def wrong_factor_type(original: Callable[[float, str], float], x: float, factor: str) -> float:
    return original(x, factor)


path = register_around(hook_target(scale), wrong_factor_type)  # expect-error
narrow: HookTarget[[float], float] = hook_target(scale)  # expect-error
