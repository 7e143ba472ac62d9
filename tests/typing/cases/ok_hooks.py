"""Typed BEFORE / AFTER / AROUND / REPLACE hooks checked against their targets."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sglang.sdk import (
    AfterHook,
    AroundHook,
    BeforeHook,
    BeforeResult,
    ClassmethodTarget,
    HookTarget,
    HookType,
    ReplaceHook,
    hook_target,
)
from sglang.sdk.hooks import HookType as HooksHookType

P = ParamSpec("P")
R = TypeVar("R")


def scale(x: float, factor: int) -> float:
    return x * factor


class Worker:
    def forward(self, batch: list[int]) -> int:
        return sum(batch)

    @classmethod
    def create(cls, rank: int) -> Worker:
        return cls()


# -- hooks for a function target ---------------------------------------------


def clamp_args(x: float, factor: int) -> BeforeResult:
    if factor > 0:
        return None
    return ((x, 1), {})


def round_result(result: float, x: float, factor: int) -> float | None:
    return round(result, 3)


def timed(original: Callable[[float, int], float], x: float, factor: int) -> float:
    return original(x, factor)


def faster_scale(x: float, factor: int) -> float:
    return x * float(factor)


before: BeforeHook[[float, int]] = clamp_args
after: AfterHook[float, [float, int]] = round_result
around: AroundHook[[float, int], float] = timed
replace: ReplaceHook[[float, int], float] = faster_scale
target: HookTarget[[float, int], float] = hook_target(scale)


# -- hooks for a method target (``self`` is the first argument) ---------------


def log_batch(self: Worker, batch: list[int]) -> BeforeResult:
    print(len(batch))
    return None


def wrap_forward(
    original: Callable[[Worker, list[int]], int], self: Worker, batch: list[int]
) -> int:
    return original(self, batch) + 0


method_before: BeforeHook[[Worker, list[int]]] = log_batch
method_around: AroundHook[[Worker, list[int]], int] = wrap_forward
method_target: HookTarget[[Worker, list[int]], int] = hook_target(Worker.forward)


# -- hooks for a classmethod target (``cls`` is the first argument) -----------


def log_create(
    original: Callable[[type[Worker], int], Worker], cls: type[Worker], rank: int
) -> Worker:
    print(cls.__name__, rank)
    return original(cls, rank)


def create_called_class(cls: type[Worker], rank: int) -> Worker:
    return cls()  # the class the call was made on, a subclass included


classmethod_target: ClassmethodTarget[Worker, [int], Worker] = hook_target(Worker.create, cls=Worker)
as_hook_target: HookTarget[[type[Worker], int], Worker] = classmethod_target
classmethod_around: AroundHook[[type[Worker], int], Worker] = log_create
classmethod_replace: ReplaceHook[[type[Worker], int], Worker] = create_called_class


# -- class replacement -----------------------------------------------------------


class MyWorker(Worker):
    def forward(self, batch: list[int]) -> int:
        return super().forward(batch) * 2


replacement: type[Worker] = MyWorker


# -- a vendor's helper binding a hook's types to a typed target ------------------


def checked_around(target: HookTarget[P, R], hook: AroundHook[P, R]) -> tuple[str, HookType]:
    return (target.path, HookType.AROUND)


def checked_before(target: HookTarget[P, R], hook: BeforeHook[P]) -> tuple[str, HookType]:
    return (target.path, HookType.BEFORE)


def checked_after(target: HookTarget[P, R], hook: AfterHook[R, P]) -> tuple[str, HookType]:
    return (target.path, HookType.AFTER)


registrations = [
    checked_around(hook_target(scale), timed),
    checked_before(hook_target(scale), clamp_args),
    checked_after(hook_target(scale), round_result),
    checked_around(hook_target(Worker.forward), wrap_forward),
    checked_around(hook_target(Worker.create, cls=Worker), log_create),
]
kinds: frozenset[HookType] = frozenset(HooksHookType)
