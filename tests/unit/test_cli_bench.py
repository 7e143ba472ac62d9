"""The CLI benchmark runs (``--quick``); timings are reported, never asserted."""

from __future__ import annotations

import subprocess
import sys

from tests.support.dists import REPO_ROOT


def test_bench_cli_quick_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "bench_cli.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rows = ("python -c pass", "sglang --version", "--model-type my_runtime", "plugins check")
    for row in rows:
        assert row in proc.stdout
