"""Timing helpers shared by the benchmarks.

Every benchmark measures its baseline in the same run and reports ratios,
so results compare across machines. Import from a benchmark script run as
``python benchmarks/bench_NAME.py`` (the script's folder is on ``sys.path``)::

    from _common import median_ms, print_table

* :func:`median_ms` times a callable ``repeat`` times, running ``setup``
  (untimed) before each repetition, and returns the median in milliseconds.
* :func:`print_table` prints rows under headers as an aligned text table.
* :func:`machine` describes the machine in one line for the results table.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence

__all__ = ["machine", "median_ms", "print_table"]


def median_ms(
    fn: Callable[[], object],
    *,
    repeat: int,
    setup: Callable[[], object] | None = None,
) -> float:
    """Return the median wall time of ``fn()`` over *repeat* runs, in milliseconds.

    *setup* runs before every repetition and is not timed (use it to clear
    caches so that each repetition is cold).
    """
    samples: list[float] = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print *rows* under *headers*, columns right-aligned to their widest cell."""
    widths = [
        max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=False)
    ]
    for line in (headers, *rows):
        print(" | ".join(str(cell).rjust(width) for cell, width in zip(line, widths, strict=True)))


def machine() -> str:
    """One line naming the interpreter, the OS and the CPU count."""
    return (
        f"Python {platform.python_version()} ({sys.implementation.name}), "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
    )
