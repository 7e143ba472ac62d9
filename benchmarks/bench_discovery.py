"""Entry-point lookup for every group read at startup: our scan vs importlib.metadata.

For 10, 100 and 300 synthetic installed distributions (real ``*.dist-info``
folders in a temporary site), this times a *cold* lookup of the five groups
in :data:`sglang.sdk.constants.ALL_ENTRY_POINT_GROUPS`:

* ours: :func:`sglang.runtime.discovery.refresh` (one scan) then
  ``entry_point_index().group(g)`` for each group;
* baseline: ``importlib.metadata.entry_points(group=g)`` once per group,
  the way a loader without a shared index reads them.

Before every repetition (untimed) both sides start cold: our index is
dropped by ``refresh()`` itself, and importlib's caches are cleared with
``importlib.invalidate_caches()`` plus ``FastPath.__new__.cache_clear()``
(importlib.metadata memoises one directory listing per ``sys.path`` entry
and modification time). Within one repetition the baseline keeps the
caches its five calls build, as it would in a real process.

Two ``sys.path`` layouts are measured: the synthetic site alone, and the
site in front of this interpreter's real ``sys.path``. The target is ours
<= 0.5x the baseline at 300 distributions. Run::

    python benchmarks/bench_discovery.py           # full: 10/100/300, 21 repetitions
    python benchmarks/bench_discovery.py --quick   # smoke run: 10 dists, 3 repetitions
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from _common import machine, median_ms, print_table

from sglang.runtime import discovery
from sglang.sdk.constants import ALL_ENTRY_POINT_GROUPS

TARGET_RATIO = 0.5
METADATA_BODY = "\n".join(f"Line {i} of a long description." for i in range(200))


def write_site(root: Path, size: int) -> None:
    """Write *size* distributions; every 10th declares one entry point in each of our groups."""
    root.mkdir(parents=True)
    for i in range(size):
        info = root / f"synthetic_dist_{i:04d}-1.{i}.0.dist-info"
        info.mkdir()
        classifiers = "".join(f"Classifier: Topic :: Item {j}\n" for j in range(10))
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: synthetic-dist-{i:04d}\nVersion: 1.{i}.0\n"
            f"Summary: synthetic distribution {i}\n{classifiers}\n{METADATA_BODY}\n",
            encoding="utf-8",
        )
        lines = [
            "[console_scripts]",
            f"synthetic-{i} = synthetic_{i}.cli:main",
            f"synthetic-{i}-admin = synthetic_{i}.cli:admin",
            "",
            "[synthetic.unrelated]",
            f"hook_{i} = synthetic_{i}.hooks:hook [extra]",
            "",
        ]
        if i % 10 == 0:
            for group in ALL_ENTRY_POINT_GROUPS:
                lines += [f"[{group}]", f"plugin_{i} = synthetic_{i}.sglang:entry", ""]
        (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
        (info / "RECORD").write_text("", encoding="utf-8")
        (info / "WHEEL").write_text("Wheel-Version: 1.0\n", encoding="utf-8")


@contextmanager
def sys_path(entries: Sequence[str]) -> Iterator[None]:
    """Run the block with ``sys.path`` set to *entries*."""
    saved = sys.path[:]
    sys.path[:] = entries
    try:
        yield
    finally:
        sys.path[:] = saved


def clear_importlib_caches() -> None:
    """Make the next importlib.metadata lookup cold."""
    importlib.invalidate_caches()
    fast_path: object = getattr(importlib.metadata, "FastPath", None)
    clear: object = getattr(getattr(fast_path, "__new__", None), "cache_clear", None)
    if callable(clear):
        clear()


def ours() -> list[tuple[str, str, str]]:
    """Cold lookup of all five groups through the shared index."""
    discovery.refresh()
    index = discovery.entry_point_index()
    return [
        (r.group, r.name, r.value) for group in ALL_ENTRY_POINT_GROUPS for r in index.group(group)
    ]


def baseline() -> list[tuple[str, str, str]]:
    """The five groups through importlib.metadata, one call per group."""
    return [
        (ep.group, ep.name, ep.value)
        for group in ALL_ENTRY_POINT_GROUPS
        for ep in importlib.metadata.entry_points(group=group)
    ]


def measure(repeat: int, fn: Callable[[], object], setup: Callable[[], object]) -> float:
    """Median milliseconds of *fn* with *setup* before each repetition."""
    return median_ms(fn, repeat=repeat, setup=setup)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one table per ``sys.path`` layout."""
    parser = argparse.ArgumentParser(description="Entry-point lookup: ours vs importlib.metadata.")
    parser.add_argument("--quick", action="store_true", help="smoke run: 10 dists, 3 reps")
    args = parser.parse_args(argv)
    sizes = (10,) if args.quick else (10, 100, 300)
    repeat = 3 if args.quick else 21
    real_path = [entry for entry in sys.path if entry]  # '' would depend on the cwd
    print(f"machine: {machine()}; median of {repeat} cold repetitions")
    verdict = True
    with tempfile.TemporaryDirectory(prefix="sglang-bench-discovery-") as tmp:
        for layout in ("site only", "site + real sys.path"):
            rows: list[list[str]] = []
            for size in sizes:
                site = Path(tmp) / f"site{size}"
                if not site.exists():
                    write_site(site, size)
                entries = [str(site)] + (real_path if layout != "site only" else [])
                with sys_path(entries):
                    clear_importlib_caches()
                    if sorted(ours()) != sorted(baseline()):
                        raise SystemExit(f"results differ at {size} distributions ({layout})")
                    ours_ms = measure(repeat, ours, clear_importlib_caches)
                    base_ms = measure(repeat, baseline, clear_importlib_caches)
                ratio = ours_ms / base_ms
                rows.append([str(size), f"{ours_ms:.2f}", f"{base_ms:.2f}", f"{ratio:.2f}x"])
                if size == max(sizes):
                    verdict = verdict and ratio <= TARGET_RATIO
            print(f"\nsys.path = {layout}")
            print_table(["dists", "ours ms", "baseline ms", "ratio"], rows)
    discovery.refresh()
    holds = "holds" if verdict else "MISSED"
    print(f"\ntarget: ours <= {TARGET_RATIO}x baseline at {max(sizes)} dists: {holds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
