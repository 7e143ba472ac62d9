"""The two hooks the plugin registers per target, typed against any target.

:class:`CallCounter` is a BEFORE hook and :class:`Timer` an AROUND hook.
Both accept any arguments and the timer returns whatever the original
returns, so an instance is a valid :data:`~sglang.sdk.BeforeHook` /
:data:`~sglang.sdk.AroundHook` for every target; the ``TYPE_CHECKING``
block below has mypy and pyright verify that.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar, cast

from sglang.sdk import BeforeResult
from sglang_observability.stats import StatsCollector

if TYPE_CHECKING:
    from sglang.sdk import AroundHook, BeforeHook

__all__ = ["CallCounter", "Timer"]

R = TypeVar("R")
T = TypeVar("T")


class CallCounter:
    """BEFORE hook: count each call of *target*; never changes the arguments."""

    def __init__(self, target: str, collector: StatsCollector) -> None:
        self.target = target
        self._collector = collector

    def __call__(self, *args: object, **kwargs: object) -> BeforeResult:
        """Count the call; return ``None`` (keep the arguments)."""
        self._collector.count(self.target)
        return None


class Timer:
    """AROUND hook: time each call of *target*, awaiting ``async def`` targets."""

    def __init__(self, target: str, collector: StatsCollector) -> None:
        self.target = target
        self._collector = collector

    def __call__(self, original: Callable[..., R], /, *args: object, **kwargs: object) -> R:
        """Call *original* and record how long it took (and whether it raised)."""
        start = time.perf_counter()
        try:
            result = original(*args, **kwargs)
        except BaseException:
            self._collector.time(self.target, time.perf_counter() - start, failed=True)
            raise
        if inspect.isawaitable(result):
            return cast("R", self._finish(cast("Awaitable[object]", result), start))
        self._collector.time(self.target, time.perf_counter() - start, failed=False)
        return result

    async def _finish(self, awaitable: Awaitable[T], start: float) -> T:
        try:
            value = await awaitable
        except BaseException:
            self._collector.time(self.target, time.perf_counter() - start, failed=True)
            raise
        self._collector.time(self.target, time.perf_counter() - start, failed=False)
        return value


if TYPE_CHECKING:

    def _typed(counter: CallCounter, timer: Timer) -> None:
        """Both hooks fit any target's typed hook signature."""
        before: BeforeHook[[int, str]] = counter
        around: AroundHook[[int, str], float] = timer
        method_around: AroundHook[[object, list[int]], int] = timer
        del before, around, method_around
