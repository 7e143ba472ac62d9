"""When requests are sent: a Poisson process at ``--request-rate`` (:func:`arrival_times`).

With a rate of ``inf`` every request is sent at time 0; otherwise the gaps
between consecutive requests are drawn from an exponential distribution
with mean ``1 / rate``, with a :class:`random.Random` seeded by ``--seed``, so
a run's schedule is reproducible. :func:`paced` yields items on that
schedule, measured from its first ``next()``.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import AsyncIterator, Sequence
from typing import TypeVar

__all__ = ["arrival_times", "paced"]

T = TypeVar("T")


def arrival_times(count: int, rate: float, seed: int) -> list[float]:
    """The send times, in seconds from the start, of *count* requests at *rate* per second.

    The first request goes at 0; ``rate=inf`` sends all at 0.

    Raises:
        ValueError: *rate* is not positive.
    """
    if not rate > 0:
        raise ValueError(f"the request rate must be positive (or inf), not {rate}")
    if math.isinf(rate):
        return [0.0] * count
    rng = random.Random(seed)
    times: list[float] = []
    now = 0.0
    for _ in range(count):
        times.append(now)
        now += rng.expovariate(rate)
    return times


async def paced(items: Sequence[T], times: Sequence[float]) -> AsyncIterator[T]:
    """Yield each of *items* at its time of *times* (seconds after the first is yielded)."""
    start = time.perf_counter()
    for item, at in zip(items, times, strict=True):
        delay = start + at - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        yield item
