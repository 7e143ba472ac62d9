"""Cold platform selection: ``current_platform`` in a fresh process vs a bare interpreter.

For 0, 10 and 50 installed SRT platform plugins (real ``*.dist-info``
folders in a temporary site, every callback returning ``None``), this
times a fresh interpreter running::

    from sglang.srt.platforms import current_platform; current_platform

* **explicit**: one extra plugin, ``chosen``, activates and
  ``SGLANG_PLATFORM=chosen`` names it; only its module is imported;
* **auto**: ``SGLANG_PLATFORM`` unset, so every callback is imported and
  called; none activates, and ``SGLANG_USE_CPU_ENGINE=1`` picks the CPU
  built-in without probing, so the numbers measure selection and not the
  torch import that hardware probing needs;
* **auto + probe**: as auto with 0 plugins but without
  ``SGLANG_USE_CPU_ENGINE``: the built-in probes import torch (reference);
* **quick start**: 50 installed plugins written as the quick start writes
  them (each plugin module imports ``SRTPlatform`` and ``PlatformEnum`` and
  defines its platform class), ``SGLANG_PLATFORM`` naming one of them; timed
  alternating with ``python -c pass`` so both see the same machine load.

The baseline, measured in the same run, is ``python -c pass``; ``import
sglang.srt.platforms`` alone is shown too. Targets: explicit selection adds
at most 30 ms over the bare interpreter, and does not grow with the number
of installed plugins (50 plugins within 5 ms of 0); the quick-start case adds
at most 15 ms. Run::

    python benchmarks/bench_selection.py           # 0/10/50 plugins, median of 15
    python benchmarks/bench_selection.py --quick   # smoke: 0/10 plugins, 3 reps, no probe row
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from _common import machine, median_ms, print_table

GROUP = "sglang.srt.platforms"
OVERHEAD_TARGET_MS = 30.0
GROWTH_TARGET_MS = 5.0
QUICKSTART_TARGET_MS = 15.0
QUICKSTART_RESOLVE = "from sglang.srt.platforms import current_platform as p"
QUICKSTART_PLUGIN = """\
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class QuickStartPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT
    device_name = "quickstart"


def activate():
    return "{package}:QuickStartPlatform"
"""
RESOLVE = "from sglang.srt.platforms import current_platform; current_platform"
CHOSEN_PLATFORM = """\
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


class ChosenPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT
    device_name = "chosen"
"""


def write_dist(site: Path, name: str, entry_points: str, modules: Mapping[str, str]) -> None:
    """Write one installed distribution: its modules and its ``.dist-info``."""
    for relpath, source in modules.items():
        target = site / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


def write_plugins(root: Path, kind: str, plugins: int, source: str) -> None:
    """Write *plugins* platform plugins ``bench_KIND_000`` ... whose module is *source*.

    ``{package}`` in *source* is replaced by the plugin's package name.
    """
    for i in range(plugins):
        package = f"bench_{kind}_{i:03d}"
        write_dist(
            root,
            f"bench-{kind}-{i:03d}",
            f"[{GROUP}]\n{kind}_{i:03d} = {package}:activate\n",
            {f"{package}/__init__.py": source.replace("{package}", package)},
        )


def write_site(root: Path, plugins: int, *, chosen: bool) -> Path:
    """A site with *plugins* declining plugins, plus the activating ``chosen`` one."""
    root.mkdir(parents=True)
    write_plugins(root, "declining", plugins, "def activate():\n    return None\n")
    if chosen:
        write_dist(
            root,
            "bench-chosen",
            f"[{GROUP}]\nchosen = bench_chosen:activate\n",
            {
                "bench_chosen/__init__.py": (
                    "def activate():\n    return 'bench_chosen.platform:ChosenPlatform'\n"
                ),
                "bench_chosen/platform.py": CHOSEN_PLATFORM,
            },
        )
    return root


def write_quickstart_site(root: Path, plugins: int) -> Path:
    """A site with *plugins* quick-start plugins, ``quickstart_000`` ... (all activate)."""
    root.mkdir(parents=True)
    write_plugins(root, "quickstart", plugins, QUICKSTART_PLUGIN)
    return root


def child_env(site: Path | None, pycache: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """This environment without ``SGLANG_*`` variables, with *site* on ``PYTHONPATH``.

    Bytecode is written to and read from *pycache* (``PYTHONPYCACHEPREFIX``),
    even where ``PYTHONDONTWRITEBYTECODE`` is set, so that imports cost what
    they cost in an installed environment and nothing is written into the
    repository.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    env.update(extra)
    return env


def time_child(code: str, env: Mapping[str, str], repeat: int) -> float:
    """Median wall time of a fresh ``python -c code``, in milliseconds."""
    command = [sys.executable, "-c", code]
    # untimed: checks the command works, warms the file cache and writes bytecode
    subprocess.run(command, env=env, check=True)

    def once() -> None:
        subprocess.run(command, env=env, check=True)

    return median_ms(once, repeat=repeat)


def time_alternating(
    code: str, env: Mapping[str, str], bare_env: Mapping[str, str], repeat: int
) -> tuple[float, float]:
    """Median wall times of ``python -c pass`` and ``python -c code``, run alternately."""
    command = [sys.executable, "-c", code]
    bare = [sys.executable, "-c", "pass"]
    for argv, environ in ((command, env), (bare, bare_env)):  # untimed warm-up
        subprocess.run(argv, env=environ, check=True)
    samples: dict[str, list[float]] = {"bare": [], "code": []}
    for _ in range(repeat):
        for key, argv, environ in (("bare", bare, bare_env), ("code", command, env)):
            start = time.perf_counter()
            subprocess.run(argv, env=environ, check=True)
            samples[key].append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples["bare"]), statistics.median(samples["code"])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description="Cold current_platform vs python -c pass.")
    parser.add_argument("--quick", action="store_true", help="smoke run: 0/10 plugins, 3 reps")
    args = parser.parse_args(argv)
    sizes = (0, 10) if args.quick else (0, 10, 50)
    repeat = 3 if args.quick else 15
    print(f"machine: {machine()}; median of {repeat} fresh processes")
    rows: list[list[str]] = []
    explicit_ms: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="sglang-bench-selection-") as tmp:
        pycache = Path(tmp) / "pycache"

        def env(site: Path | None, **extra: str) -> dict[str, str]:
            return child_env(site, pycache, extra)

        bare = time_child("pass", env(None), repeat)
        rows.append(["python -c pass", "-", f"{bare:.1f}", "+0.0", "1.00x"])

        def row(label: str, plugins: int, ms: float) -> None:
            rows.append(
                [label, str(plugins), f"{ms:.1f}", f"{ms - bare:+.1f}", f"{ms / bare:.2f}x"]
            )

        empty = write_site(Path(tmp) / "empty", 0, chosen=False)
        row("import only", 0, time_child("import sglang.srt.platforms", env(empty), repeat))
        for size in sizes:
            site = write_site(Path(tmp) / f"explicit{size}", size, chosen=True)
            ms = time_child(RESOLVE, env(site, SGLANG_PLATFORM="chosen"), repeat)
            explicit_ms[size] = ms
            row("explicit", size, ms)
        for size in sizes:
            site = write_site(Path(tmp) / f"auto{size}", size, chosen=False)
            ms = time_child(RESOLVE, env(site, SGLANG_USE_CPU_ENGINE="1"), repeat)
            row("auto (cpu engine)", size, ms)
        if not args.quick:  # about 1.5 s per process: torch is imported to probe
            row("auto + probe (torch)", 0, time_child(RESOLVE, env(empty), repeat))
        quick_plugins = 10 if args.quick else 50
        quick_site = write_quickstart_site(Path(tmp) / "quickstart", quick_plugins)
        quick_bare, quick_ms = time_alternating(
            QUICKSTART_RESOLVE,
            env(quick_site, SGLANG_PLATFORM="quickstart_007"),
            env(None),
            repeat,
        )
        rows.append(["python -c pass (alternating)", "-", f"{quick_bare:.1f}", "+0.0", "1.00x"])
        rows.append(
            [
                "quick start, explicit",
                str(quick_plugins),
                f"{quick_ms:.1f}",
                f"{quick_ms - quick_bare:+.1f}",
                f"{quick_ms / quick_bare:.2f}x",
            ]
        )
    print()
    print_table(["mode", "plugins", "ms", "over bare", "ratio"], rows)
    overhead = max(explicit_ms.values()) - bare
    growth = explicit_ms[max(sizes)] - explicit_ms[0]
    verdict = overhead <= OVERHEAD_TARGET_MS and growth <= GROWTH_TARGET_MS
    print(
        f"\ntarget: explicit adds <= {OVERHEAD_TARGET_MS:.0f} ms over bare (worst +{overhead:.1f}) "
        f"and grows <= {GROWTH_TARGET_MS:.0f} ms from 0 to {max(sizes)} plugins "
        f"({growth:+.1f}): {'holds' if verdict else 'MISSED'}"
    )
    quick_over = quick_ms - quick_bare
    print(
        f"target: the quick-start case adds <= {QUICKSTART_TARGET_MS:.0f} ms over bare "
        f"(+{quick_over:.1f} ms, {quick_ms / quick_bare:.2f}x the bare interpreter): "
        f"{'holds' if quick_over <= QUICKSTART_TARGET_MS else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
