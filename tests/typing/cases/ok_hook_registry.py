"""Registering typed hooks through both runtimes' documented hook APIs."""

from __future__ import annotations

import time
from collections.abc import Callable

import sglang.multimodal_gen.runtime.platforms.plugins as diffusion_plugins
from sglang.sdk import BeforeResult
from sglang.srt.plugins.hook_registry import HookRegistry, HookType, hook_target, plugin_hook


class Scheduler:
    """A stand-in hook target with a typed method."""

    def run_batch(self, batch: list[int]) -> int:
        return sum(batch)

    @classmethod
    def from_config(cls, gpu_id: int) -> Scheduler:
        return cls()


def scale(x: float, factor: int) -> float:
    return x * factor


def timed(original: Callable[[float, int], float], x: float, factor: int) -> float:
    return original(x, factor)


def clamp(x: float, factor: int) -> BeforeResult:
    return None if factor > 0 else ((x, 1), {})


def rounded(result: float, x: float, factor: int) -> float | None:
    return round(result, 2)


def faster(x: float, factor: int) -> float:
    return x * factor


def my_timer(original_fn: Callable[..., object], *args: object, **kwargs: object) -> object:
    """The guide's untyped-target AROUND hook, annotated for strict checkers."""
    start = time.perf_counter()
    result = original_fn(*args, **kwargs)
    print(f"Elapsed: {time.perf_counter() - start:.3f}s")
    return result


def log_build(
    original: Callable[[type[Scheduler], int], Scheduler], cls: type[Scheduler], gpu_id: int
) -> Scheduler:
    print(f"building {cls.__name__} on gpu {gpu_id}")
    return original(cls, gpu_id)


def register() -> None:
    """A general plugin registering one hook of each type, typed against its target."""
    target = hook_target(scale)
    HookRegistry.register(target, timed, HookType.AROUND)
    HookRegistry.register(target, clamp, HookType.BEFORE)
    HookRegistry.register(target, rounded, HookType.AFTER)
    HookRegistry.register(target, faster, HookType.REPLACE)
    HookRegistry.register(
        "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run",
        my_timer,
        HookType.AROUND,
    )
    HookRegistry.register(
        "sglang.srt.managers.scheduler:Scheduler.__init__", my_timer, HookType.AROUND
    )
    diffusion_plugins.HookRegistry.register(target, timed, HookType.AROUND)
    # a classmethod's hooks receive cls first: name the class it is hooked on
    HookRegistry.register(
        hook_target(Scheduler.from_config, cls=Scheduler), log_build, HookType.AROUND
    )


@plugin_hook(hook_target(Scheduler.run_batch), type=HookType.AROUND)
def profile(
    original: Callable[[Scheduler, list[int]], int], self: Scheduler, batch: list[int]
) -> int:
    return original(self, batch)


@plugin_hook(hook_target(Scheduler.from_config, cls=Scheduler), type=HookType.REPLACE)
def build_called_class(cls: type[Scheduler], gpu_id: int) -> Scheduler:
    return cls()  # a subclass calling from_config gets an instance of itself


@plugin_hook(hook_target(Scheduler.from_config, cls=Scheduler), type=HookType.AFTER)
def built(result: Scheduler, cls: type[Scheduler], gpu_id: int) -> Scheduler | None:
    print(f"{cls.__name__} built on gpu {gpu_id}")
    return None


@plugin_hook(hook_target(Scheduler.from_config, cls=Scheduler), type=HookType.BEFORE)
def check_gpu(cls: type[Scheduler], gpu_id: int) -> BeforeResult:
    return None if gpu_id >= 0 else ((0,), {})


@diffusion_plugins.plugin_hook(hook_target(scale), type=diffusion_plugins.HookType.BEFORE)
def log_args(x: float, factor: int) -> BeforeResult:
    print(x, factor)
    return None


@plugin_hook("sglang.srt.managers.scheduler.Scheduler", type=HookType.REPLACE)
class MyScheduler(Scheduler):
    def run_batch(self, batch: list[int]) -> int:
        return super().run_batch(batch) + 1


def original_run_batch(self: Scheduler, batch: list[int]) -> int:
    return self.run_batch(batch)


still_typed: int = profile(original_run_batch, Scheduler(), [1, 2])
