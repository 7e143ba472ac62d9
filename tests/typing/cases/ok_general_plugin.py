"""A general (hook) plugin: the ``register`` entry point and its typed targets."""

from __future__ import annotations

import time
from collections.abc import Callable

from sglang.sdk import (
    SRT_PLUGINS_GROUP,
    AroundHook,
    GeneralPluginCallback,
    HookTarget,
    HookType,
    hook_target,
)

REGISTERED: list[tuple[str, HookType]] = []


class Scheduler:
    """A stand-in for ``sglang.srt.managers.scheduler.Scheduler``."""

    def __init__(self, gpu_id: int) -> None:
        self.gpu_id = gpu_id

    def get_next_batch_to_run(self) -> list[int] | None:
        return [self.gpu_id]


def my_timer(
    original_fn: Callable[[Scheduler], list[int] | None], self: Scheduler
) -> list[int] | None:
    start = time.perf_counter()
    result = original_fn(self)
    print(f"Elapsed: {time.perf_counter() - start:.3f}s")
    return result


def register() -> None:
    """Entry point called by ``load_plugins()``."""
    target = hook_target(Scheduler.get_next_batch_to_run)
    REGISTERED.append((target.path, HookType.AROUND))


callback: GeneralPluginCallback = register
typed_target: HookTarget[[Scheduler], list[int] | None] = hook_target(
    Scheduler.get_next_batch_to_run
)
timer: AroundHook[[Scheduler], list[int] | None] = my_timer
group: str = SRT_PLUGINS_GROUP
path: str = typed_target.path
