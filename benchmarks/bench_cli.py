"""Wall time of the cheap ``sglang`` commands against a bare interpreter, in one run.

Each command runs as a fresh process, the way an operator types it:

* ``python -c pass``: the baseline;
* ``sglang --version``;
* ``sglang plugins`` (reads every group's metadata, imports no plugin);
* ``sglang serve --help`` (the serve help, from metadata only);
* ``sglang serve --model-type llm --help`` (loads SRT plugins, then the
  in-tree backend prints the server arguments);
* ``sglang serve --model-type my_runtime --help`` (the example backend of
  ``examples/serve_backend``, registered through a temporary dist-info);
* ``sglang plugins check`` with the five examples of ``examples/``
  registered (temporary dist-infos, their folders on ``PYTHONPATH``): every
  platform class, hook and serve backend they declare is judged.

Every process gets the same environment: this one minus ``SGLANG_*`` and
``PYTHONDONTWRITEBYTECODE`` (so bytecode caches are written once and then
used, as in an installed environment), with the serve-backend example on
``PYTHONPATH`` for all of them, the baseline included; the check row has
the five examples instead. One untimed warm-up run per command writes the
bytecode; the repetitions then alternate between the commands. Two
``floor`` rows time the standard-library imports that a console script and
an argparse help screen cannot avoid (see ``FLOORS``); the targets are
stated against them (see ``TARGETS``). Run::

    python benchmarks/bench_cli.py           # median of 21
    python benchmarks/bench_cli.py --quick   # smoke run: 3 repetitions
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import machine, print_table

TARGET_RATIO = 1.5
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE = EXAMPLES / "serve_backend"
ALL_EXAMPLES = (
    "demo_platform",
    "my_general_plugin",
    "my_platform_plugin",
    "observability_plugin",
    "serve_backend",
)
CHECK_BUDGET_MS = 1000.0
ENTRY_POINTS = """\
[sglang.serve_backends]
my_runtime = my_sglang_runtime.sglang_backend:create_backend
"""


def sglang_command() -> list[str]:
    """The installed console script run by this interpreter, else ``-m sglang.cli.main``."""
    script = Path(sysconfig.get_path("scripts")) / "sglang"
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "sglang.cli.main"]


def example_site(root: Path) -> Path:
    """A site folder declaring the example backend (its code comes from ``EXAMPLE``)."""
    info = root / "my_sglang_runtime-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my-sglang-runtime\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return root


def examples_site(root: Path) -> Path:
    """A site folder declaring every example of ``examples/`` (entry points from each pyproject)."""
    for name in ALL_EXAMPLES:
        section, project, lines = "", {}, []
        for line in (EXAMPLES / name / "pyproject.toml").read_text(encoding="utf-8").splitlines():
            header = re.fullmatch(r"\[(.+)\]", line.strip())
            pair = re.fullmatch(r'(\w[\w.-]*)\s*=\s*"([^"]*)"', line.strip())
            if header:
                section = header.group(1)
                if section.startswith('project.entry-points."'):
                    lines.append(f"[{section.split(chr(34))[1]}]")
            elif pair and section == "project":
                project[pair.group(1)] = pair.group(2)
            elif pair and section.startswith('project.entry-points."'):
                lines.append(f"{pair.group(1)} = {pair.group(2)}")
        info = root / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
            encoding="utf-8",
        )
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def environment(site: Path, *folders: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("SGLANG_") and key != "PYTHONDONTWRITEBYTECODE"
    }
    entries = [str(site), *map(str, folders or (EXAMPLE,)), *filter(None, [env.get("PYTHONPATH")])]
    env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


FLOORS = {
    "floor: console script": "import re, sys",
    "floor: argparse help": "import re, sys, argparse, shutil, dataclasses, logging",
}
"""What the interpreter needs before any sglang code runs, as ``python -c`` rows.

pip's console-script wrapper imports :mod:`re`; a help screen needs
:mod:`argparse` (which formats through :mod:`shutil`), and the server
arguments are a :mod:`dataclasses` class whose plugins log through
:mod:`logging`. These rows show how much of each ratio the standard library
takes; they are not commands and have no target.
"""


CHECK = "sglang plugins check (5 examples)"

TARGETS = {
    "sglang --version": ("floor: console script", TARGET_RATIO),
    "sglang plugins": ("floor: console script", TARGET_RATIO),
    "sglang serve --help": ("floor: argparse help", TARGET_RATIO),
    "sglang serve --model-type llm --help": ("floor: argparse help", TARGET_RATIO),
    "sglang serve --model-type my_runtime --help": ("floor: argparse help", TARGET_RATIO),
}
"""Each command's target: at most a ratio of the floor row it cannot go below.

``--version`` and the listing need what a console script needs; a help
screen needs :mod:`argparse` as well. The check is judged in absolute time
(``CHECK_BUDGET_MS``): it imports every example plugin, which no floor has.
"""


def commands() -> dict[str, list[str]]:
    sglang = sglang_command()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        **{name: [sys.executable, "-c", code] for name, code in FLOORS.items()},
        "sglang --version": [*sglang, "--version"],
        "sglang plugins": [*sglang, "plugins"],
        "sglang serve --help": [*sglang, "serve", "--help"],
        "sglang serve --model-type llm --help": [*sglang, "serve", "--model-type", "llm", "--help"],
        "sglang serve --model-type my_runtime --help": [
            *sglang,
            "serve",
            "--model-type",
            "my_runtime",
            "--help",
        ],
        CHECK: [*sglang, "plugins", "check"],
    }


def meets(name: str, ms: float, medians: dict[str, float]) -> tuple[str, str]:
    """``(target, yes/no)`` of command *name*; ``("-", "-")`` for a reference row."""
    if name == CHECK:
        return f"< {CHECK_BUDGET_MS:.0f} ms", "yes" if ms < CHECK_BUDGET_MS else "no"
    if name not in TARGETS:
        return ("baseline", "-") if name == "python -c pass" else ("-", "-")
    floor, ratio = TARGETS[name]
    return f"<= {ratio}x {floor[len('floor: ') :]}", (
        "yes" if ms <= ratio * medians[floor] else "no"
    )


def run_once(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = (time.perf_counter() - start) * 1000.0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "bench_cli").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions (smoke run)")
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else args.repeat
    with tempfile.TemporaryDirectory(prefix="sglang-bench-cli-") as tmp:
        env = environment(example_site(Path(tmp) / "site"))
        envs = {
            CHECK: environment(
                examples_site(Path(tmp) / "examples"), *map(EXAMPLES.joinpath, ALL_EXAMPLES)
            )
        }
        table = commands()
        for name, command in table.items():  # writes the bytecode caches
            run_once(command, envs.get(name, env))
        samples: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(repeat):
            for name, command in table.items():
                samples[name].append(run_once(command, envs.get(name, env)))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    base = medians["python -c pass"]
    rows = [
        [name, f"{ms:.1f}", f"{ms / base:.2f}x", *meets(name, ms, medians)]
        for name, ms in medians.items()
    ]
    print(f"{machine()}; median of {repeat} runs")
    print_table(["command", "median ms", "vs python -c pass", "target", "meets target"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
