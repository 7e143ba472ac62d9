"""Classmethod hooks receive ``cls`` first; a hook written without it is rejected."""

from __future__ import annotations

from collections.abc import Callable

from sglang.sdk import AroundHook, BeforeResult, HookTarget
from sglang.srt.plugins.hook_registry import HookType, hook_target, plugin_hook


class Worker:
    @classmethod
    def create(cls, rank: int) -> Worker:
        return cls()


def around_without_cls(original: Callable[[int], Worker], rank: int) -> Worker:
    return original(rank)


target = hook_target(Worker.create, cls=Worker)
checked: AroundHook[[type[Worker], int], Worker] = around_without_cls  # expect-error
without_cls: HookTarget[[int], Worker] = hook_target(Worker.create, cls=Worker)  # expect-error
not_a_class = hook_target(Worker.create, cls="Worker")  # expect-error


@plugin_hook(target, type=HookType.AROUND)  # expect-error
def decorated_around_without_cls(original: Callable[[int], Worker], rank: int) -> Worker:
    return original(rank)


@plugin_hook(target, type=HookType.REPLACE)  # expect-error
def replace_without_cls(rank: int) -> Worker:
    return Worker()


@plugin_hook(target, type=HookType.BEFORE)  # expect-error
def before_without_cls(rank: int) -> BeforeResult:
    return None
