"""The hook registries check a hook against a typed target and its HookType."""

from __future__ import annotations

from collections.abc import Callable

from sglang.srt.plugins.hook_registry import HookRegistry, HookType, hook_target, plugin_hook


def scale(x: float, factor: int) -> float:
    return x * factor


def timed(original: Callable[[float, int], float], x: float, factor: int) -> float:
    return original(x, factor)


def wrong_types(original: Callable[[float, str], float], x: float, factor: str) -> float:
    return original(x, factor)


def args_only(x: float, factor: int) -> tuple[float, int]:
    return (x, factor)


target = hook_target(scale)
HookRegistry.register(target, wrong_types, HookType.AROUND)  # expect-error
HookRegistry.register(target, args_only, HookType.BEFORE)  # expect-error
HookRegistry.register(target, timed, HookType.BEFORE)  # expect-error


@plugin_hook(target, type=HookType.AROUND)  # expect-error
def drops_factor(original: Callable[[float], float], x: float) -> float:
    return original(x)
