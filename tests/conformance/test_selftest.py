"""The suite passes on the built-in CPU platform and on the demo platform, for real.

Each run is a real ``pytest --sglang-conformance`` in a fresh interpreter
(:mod:`tests.conformance.harness`) whose JSON report the tests read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sglang.conformance import CLAUSES, OUTCOMES, Level
from sglang.sdk.constants import (
    SERVE_BACKENDS_GROUP,
    SRT_PLATFORMS_GROUP,
)
from tests.conformance.harness import BROKEN, DEMO, SuiteRun, run_suite
from tests.support.dists import Dist
from tests.support.examples import example_dist

REPORT_KEYS = [
    "suite_version",
    "sglang_version",
    "torch_version",
    "device",
    "runtime",
    "plugin",
    "clauses",
    "summary",
]

DEMO_DIST = example_dist("demo_platform")
GOOD_SERVE = Dist(
    "conformance-serve",
    "0.0.1",
    entry_points={SERVE_BACKENDS_GROUP: {"ok": "conformance_broken.serve:good"}},
)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    """The whole suite on the built-in CPU platforms, with a correct serve backend installed."""
    return run_suite(
        tmp_path_factory.mktemp("cpu"),
        ["--sglang-platform", "cpu", "--sglang-runtime", "all"],
        dists=[GOOD_SERVE],
        sources=[BROKEN],
    )


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    """The whole suite on the demo platform, selected as a user would (SGLANG_PLATFORM)."""
    return run_suite(
        tmp_path_factory.mktemp("demo"),
        ["--sglang-runtime", "all"],
        dists=[DEMO_DIST],
        sources=[DEMO],
        env={"SGLANG_PLATFORM": "demo", "SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "demo"},
    )


def _check_schema(run: SuiteRun) -> None:
    report = run.report
    assert list(report) == REPORT_KEYS
    assert set(report["plugin"]) == {"entry_point", "distribution", "version"}
    levels = {level.value for level in Level}
    clauses = report["clauses"]
    assert isinstance(clauses, list)
    for item in clauses:
        assert list(item) == ["id", "level", "rule", "outcome", "reason"]
        assert item["level"] in levels
        assert item["outcome"] in OUTCOMES
        assert item["rule"] == CLAUSES[item["id"]].rule
    summary = report["summary"]
    assert isinstance(summary, dict)
    assert list(summary) == list(OUTCOMES)
    assert sum(summary.values()) == len(clauses)


def _check_header_summary_and_diffusion(demo_run: SuiteRun) -> None:
    out = demo_run.output
    assert "sglang conformance suite 1.2: sglang 0.1.0, torch 2.13.0" in out
    assert "device Demo device 0 (cpu)" in out
    assert (
        "plugin: entry point demo = sglang_demo_platform:activate, distribution "
        "sglang-demo-platform 0.1.0"
    ) in out
    # no serve plugin is installed: --sglang-runtime all tests the in-tree backends
    assert "serve backends: llm, diffusion" in out
    for clause_id in ("SRV-01", "SRV-02", "SRV-03"):
        assert demo_run.outcome(clause_id) == "passed", clause_id
    summary = out.split("sglang conformance")[-1]
    assert "activation:\n  ACT-01  passed" in summary
    assert "clauses: " in summary
    _check_counts_reconcile(out)
    (item,) = [c for c in demo_run.report["clauses"] if c["id"] == "E2E-03"]
    assert item["outcome"] == "passed", item  # the demo's image equals the CPU's


def _check_counts_reconcile(out: str) -> None:
    """The header says how the counts relate; the clause line shows pytest's totals."""
    assert "counting: the 'clauses:' line counts each clause once" in out
    cases = re.search(r"^clauses: .* \(from (\d+) test cases: ([^;)]*)", out, re.M)
    assert cases is not None, out[-3000:]
    (totals,) = re.findall(r"^=+ (.*) in [\d.]+s", out, re.M)
    assert {k: v for v, k in re.findall(r"(\d+) (\w+)", cases[2])} == {
        k: v for v, k in re.findall(r"(\d+) (passed|failed|skipped|xfailed)", totals)
    }, (cases[0], totals)
    assert int(cases[1]) == sum(int(n) for n in re.findall(r"(\d+) (?!deselected)\w+", totals))


def test_cpu_platform_passes_every_clause(cpu_run: SuiteRun) -> None:
    assert cpu_run.returncode == 0, cpu_run.output[-6000:]
    assert cpu_run.failed() == set()
    assert set(cpu_run.outcome_map()) == set(CLAUSES)  # every clause reported
    for clause_id in (
        "CON-01",
        "DEV-04",
        "SUB-02",
        "SUB-04",
        "LIF-01",
        "LIF-02",
        "E2E-01",
        "E2E-02",
    ):
        assert cpu_run.outcome(clause_id) == "passed", clause_id
    for clause_id in ("SRV-01", "SRV-02", "SRV-03"):  # --sglang-runtime all tests every backend
        assert cpu_run.outcome(clause_id) == "passed", clause_id
    assert "serve backends: llm, diffusion, ok" in cpu_run.output  # in-tree ones first
    _check_schema(cpu_run)
    assert cpu_run.report["runtime"] == "all"
    assert cpu_run.report["plugin"] == {"entry_point": None, "distribution": None, "version": None}


def test_demo_platform_passes_every_clause(demo_run: SuiteRun) -> None:
    assert demo_run.returncode == 0, demo_run.output[-6000:]
    assert demo_run.failed() == set()
    passed = {cid for cid, outcome in demo_run.outcome_map().items() if outcome == "passed"}
    for level in ("ACT", "CON", "SUB", "OPS"):  # the demo dispatches all three fused ops
        ungated = {c for c in CLAUSES if c.startswith(level) and CLAUSES[c].capability is None}
        assert ungated <= passed, level
    assert demo_run.outcome("SUB-07") == "skipped"  # the demo declares no graph capture
    assert {"E2E-01", "E2E-02", "LIF-02", "LIF-03", "DEV-04"} <= passed  # LIF-03: its own plugin
    _check_schema(demo_run)
    assert demo_run.report["plugin"] == {
        "entry_point": "demo = sglang_demo_platform:activate",
        "distribution": "sglang-demo-platform",
        "version": "0.1.0",
    }
    # one test per run: under pytest-xdist a module fixture runs once per worker
    _check_header_summary_and_diffusion(demo_run)


def test_xdist_and_keyword_selection(tmp_path: Path) -> None:
    run = run_suite(
        tmp_path,
        ["-n", "2", "-k", "contract or DEV-0"],
        dists=[DEMO_DIST],
        sources=[DEMO],
        env={"SGLANG_PLATFORM": "demo"},
    )
    assert run.returncode == 0, run.output[-4000:]
    assert {cid[:3] for cid in run.outcome_map()} == {"CON", "DEV"}
    assert run.failed() == set()


def test_exitfirst_stops_at_the_first_failing_clause(tmp_path: Path) -> None:
    broken = Dist(
        "conformance-broken",
        entry_points={SRT_PLATFORMS_GROUP: {"broken": "conformance_broken:memory_lies"}},
    )
    run = run_suite(
        tmp_path,
        ["-x", "-k", "contract or device or subsystems"],
        dists=[broken],
        sources=[BROKEN],
        env={"SGLANG_PLATFORM": "broken"},
    )
    assert run.returncode == 1
    assert run.failed() == {"DEV-01"}
    assert not any(cid.startswith("SUB") for cid in run.outcome_map())  # never reached


def test_expectations_file(tmp_path: Path) -> None:
    expect = tmp_path / "expect.toml"
    expect.write_text(
        '[xfail]\nCON-01 = "stale: it passes"\nXYZ-99 = "no such clause"\n\n'
        '[skip]\nDEV-02 = "our capability query needs a driver update"\n',
        encoding="utf-8",
    )
    good = Dist(
        "conformance-broken",
        entry_points={SRT_PLATFORMS_GROUP: {"broken": "conformance_broken:good"}},
    )
    run = run_suite(
        tmp_path,
        ["--sglang-conformance-expect", str(expect), "-k", "contract or DEV-02"],
        dists=[good],
        sources=[BROKEN],
        env={"SGLANG_PLATFORM": "broken"},
    )
    assert run.returncode == 1  # the strict expected failure passed
    assert run.outcome("CON-01") == "failed"
    assert run.outcome("DEV-02") == "skipped"
    (skip,) = [c for c in run.report["clauses"] if c["id"] == "DEV-02"]
    assert "our capability query needs a driver update" in skip["reason"]
    assert "expectations file names unknown clause ids: XYZ-99" in run.output
    assert "stale expected failures (they passed): CON-01" in run.output


def test_a_rejected_plugin_skips_every_later_level(tmp_path: Path) -> None:
    broken = Dist(
        "conformance-broken",
        entry_points={SRT_PLATFORMS_GROUP: {"broken": "conformance_broken:returns_class"}},
    )
    run = run_suite(
        tmp_path,
        ["-k", "activation or contract or device or lifecycle"],
        dists=[broken],
        sources=[BROKEN],
        env={"SGLANG_PLATFORM": "broken"},
    )
    assert run.failed() == {"ACT-01"}
    for item in run.report["clauses"]:
        if not item["id"].startswith("ACT"):
            assert item["outcome"] == "skipped"
            assert "platform selection rejected the plugin" in item["reason"], item


def test_an_unknown_platform_name_fails_the_catch_all_clause(tmp_path: Path) -> None:
    run = run_suite(tmp_path, ["--sglang-platform", "missing", "-k", "activation or contract"])
    assert run.failed() == {"ACT-08"}
    (item,) = [c for c in run.report["clauses"] if c["id"] == "ACT-08"]
    assert "missing" in item["reason"]


def test_a_bad_expectations_file_is_a_usage_error(tmp_path: Path) -> None:
    import subprocess

    from tests.support.isolation import clean_environment, plugin_free_env

    bad = tmp_path / "bad.toml"
    bad.write_text("[surprise]\nA = 'b'\n", encoding="utf-8")
    proc = subprocess.run(
        [
            str(clean_environment().python),
            "-m",
            "pytest",
            "--sglang-conformance",
            "--sglang-platform",
            "cpu",
            "--sglang-conformance-expect",
            str(bad),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=plugin_free_env(),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 4, proc.stdout + proc.stderr  # pytest's usage error
    assert "unknown table(s) surprise" in proc.stderr


VENDOR_TEST = """
from sglang.conformance.levels import test_device


class TestMyDevice(test_device.TestDevice):
    def test_my_device_reports_memory(self, sglang_platform):
        assert sglang_platform.get_device_total_memory() >= 2**20
"""


def test_a_vendor_subclass_runs_next_to_the_suite(tmp_path: Path) -> None:
    run = run_suite(
        tmp_path,
        ["--sglang-platform", "cpu", "tests/test_my_device.py", "-k", "DEV-05 or reports", "-v"],
        files={"tests/test_my_device.py": VENDOR_TEST},
    )
    assert run.returncode == 0, run.output[-4000:]
    assert run.outcome_map() == {"DEV-05": "passed"}
    assert (
        "tests/test_my_device.py::TestMyDevice::test_my_device_reports_memory[srt] PASSED"
        in run.output
    )
    assert (
        "tests/test_my_device.py::TestMyDevice::test_get_device_allocates[srt] PASSED" in run.output
    )
    # pytest's totals count the vendor's own test too, and the summary says so
    assert "pytest's totals also count 1 test(s) without a clause)" in run.output
