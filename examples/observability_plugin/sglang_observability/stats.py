"""Thread-safe call counters and timings, one entry per hooked target."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["StatsCollector", "TargetStats", "format_stats"]


@dataclass(frozen=True)
class TargetStats:
    """What the plugin measured for one target.

    Attributes:
        calls: Calls counted by the BEFORE hook.
        timed: Calls that completed through the AROUND hook (returned or raised).
        errors: Timed calls that raised.
        total_s: Summed wall time of the timed calls, in seconds.
        min_s: The fastest timed call (``0.0`` before any).
        max_s: The slowest timed call.
    """

    calls: int = 0
    timed: int = 0
    errors: int = 0
    total_s: float = 0.0
    min_s: float = 0.0
    max_s: float = 0.0

    @property
    def mean_s(self) -> float:
        """Mean wall time of the timed calls (``0.0`` before any)."""
        return self.total_s / self.timed if self.timed else 0.0


class StatsCollector:
    """Accumulates :class:`TargetStats` per target; safe to use from many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stats: dict[str, TargetStats] = {}

    def count(self, target: str) -> None:
        """Record one call of *target*."""
        with self._lock:
            entry = self._stats.get(target, TargetStats())
            self._stats[target] = TargetStats(
                entry.calls + 1, entry.timed, entry.errors, entry.total_s, entry.min_s, entry.max_s
            )

    def time(self, target: str, seconds: float, *, failed: bool) -> None:
        """Record one completed call of *target* that took *seconds*."""
        with self._lock:
            entry = self._stats.get(target, TargetStats())
            first = entry.timed == 0
            self._stats[target] = TargetStats(
                calls=entry.calls,
                timed=entry.timed + 1,
                errors=entry.errors + int(failed),
                total_s=entry.total_s + seconds,
                min_s=seconds if first else min(entry.min_s, seconds),
                max_s=max(entry.max_s, seconds),
            )

    def snapshot(self) -> Mapping[str, TargetStats]:
        """A read-only copy of every target's stats."""
        with self._lock:
            return MappingProxyType(dict(self._stats))

    def reset(self) -> None:
        """Forget everything measured so far."""
        with self._lock:
            self._stats.clear()


def format_stats(stats: Mapping[str, TargetStats]) -> str:
    """Render *stats* as an aligned table, slowest total first."""
    rows = [("target", "calls", "errors", "total ms", "mean ms", "max ms")]
    for target, entry in sorted(stats.items(), key=lambda item: -item[1].total_s):
        rows.append(
            (
                target,
                str(entry.calls),
                str(entry.errors),
                f"{entry.total_s * 1e3:.3f}",
                f"{entry.mean_s * 1e3:.3f}",
                f"{entry.max_s * 1e3:.3f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    )
