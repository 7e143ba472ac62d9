"""The hook benchmark runs (``--quick``); timings are reported, never asserted."""

from __future__ import annotations

import subprocess
import sys

from tests.support.dists import REPO_ROOT


def test_bench_hooks_quick_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "bench_hooks.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "unhooked target is the identical object: True" in proc.stdout
    for row in ("1 BEFORE", "1 AFTER", "1 AROUND", "stack of 5", "pluggy, 1 implementation"):
        assert row in proc.stdout
    assert "apply_hooks(), 50 targets" in proc.stdout
