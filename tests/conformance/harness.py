"""Run ``pytest --sglang-conformance`` for real, in a fresh interpreter, and read its report.

The interpreter is the plugin-free venv's (:mod:`tests.support.isolation`):
it sees sglang (and so the ``pytest11`` entry point) but no other
installed plugin. The plugins under test are real ``*.dist-info`` folders
in a :class:`~tests.support.dists.Site` whose folder, and the folders of
their sources, go on ``PYTHONPATH``. The run's working directory is an
empty folder: no test file of ours is there.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.dists import REPO_ROOT, Dist, Site
from tests.support.isolation import clean_environment, plugin_free_env

__all__ = ["BROKEN", "DEMO", "SuiteRun", "outcomes", "run_suite"]

DEMO = REPO_ROOT / "examples" / "demo_platform"
BROKEN = Path(__file__).resolve().parent / "broken"


@dataclass(frozen=True)
class SuiteRun:
    """One finished run: exit status, output and the JSON report."""

    returncode: int
    output: str
    report: dict[str, Any]

    def outcome(self, clause_id: str) -> str:
        """The outcome the report gives *clause_id*."""
        return outcomes(self.report)[clause_id]

    def outcome_map(self) -> dict[str, str]:
        """Clause id -> outcome."""
        return outcomes(self.report)

    def failed(self) -> set[str]:
        """The ids of the failed clauses."""
        return {cid for cid, outcome in outcomes(self.report).items() if outcome == "failed"}


def outcomes(report: Mapping[str, object]) -> dict[str, str]:
    """Clause id -> outcome in *report*."""
    clauses = report["clauses"]
    assert isinstance(clauses, list)
    return {str(item["id"]): str(item["outcome"]) for item in clauses}


def run_suite(
    tmp_path: Path,
    args: Sequence[str] = (),
    *,
    dists: Sequence[Dist] = (),
    sources: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    files: Mapping[str, str] | None = None,
    timeout: float = 900,
) -> SuiteRun:
    """Run the suite with *dists* installed and *sources* importable; return the run.

    *files* (relative path -> text) are written into the otherwise empty
    working directory first, as a vendor's own test files.
    """
    site = Site(tmp_path / "site")
    for dist in dists:
        site.install(dist)
    work = tmp_path / "vendor-repo"
    work.mkdir(exist_ok=True)
    for relpath, text in (files or {}).items():
        (work / relpath).parent.mkdir(parents=True, exist_ok=True)
        (work / relpath).write_text(text, encoding="utf-8")
    report = tmp_path / "report.json"
    child_env = plugin_free_env()
    child_env["PYTHONPATH"] = ":".join([str(site.root), *map(str, sources)])
    child_env.update(env or {})
    proc = subprocess.run(
        [
            str(clean_environment().python),
            "-m",
            "pytest",
            "--sglang-conformance",
            "-p",
            "no:cacheprovider",
            "--sglang-conformance-report",
            str(report),
            *args,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        env=child_env,
        timeout=timeout,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert report.exists(), f"no report written (exit {proc.returncode}):\n{output[-6000:]}"
    return SuiteRun(proc.returncode, output, json.loads(report.read_text(encoding="utf-8")))
