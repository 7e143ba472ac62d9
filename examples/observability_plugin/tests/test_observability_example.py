"""The observability plugin's own tests: its hooks count and time, its targets are configurable."""

from __future__ import annotations

import asyncio

import pytest
from sglang_observability import DEFAULT_SRT_TARGETS, TARGETS_ENV
from sglang_observability.hooks import CallCounter, Timer
from sglang_observability.stats import StatsCollector
from sglang_observability.targets import configured_targets


def test_counter_and_timer_record_calls_and_errors() -> None:
    collector = StatsCollector()
    count, timer = CallCounter("t", collector), Timer("t", collector)

    def ok(x: int) -> int:
        return x + 1

    def boom() -> None:
        raise ValueError("no")

    assert count() is None
    assert timer(ok, 1) == 2
    with pytest.raises(ValueError, match="no"):
        timer(boom)
    entry = collector.snapshot()["t"]
    assert (entry.calls, entry.timed, entry.errors) == (1, 2, 1)
    assert entry.min_s <= entry.mean_s <= entry.max_s


def test_timer_awaits_coroutines() -> None:
    collector = StatsCollector()

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert asyncio.run(Timer("a", collector)(answer)) == 42
    assert collector.snapshot()["a"].timed == 1


def test_targets_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TARGETS_ENV, raising=False)
    assert configured_targets(DEFAULT_SRT_TARGETS) == DEFAULT_SRT_TARGETS
    monkeypatch.setenv(TARGETS_ENV, " pkg.mod:f , pkg.mod:f,pkg.other.C.m ,")
    assert configured_targets(DEFAULT_SRT_TARGETS) == ("pkg.mod:f", "pkg.other.C.m")
