"""The suite's session plugin, registered only with ``--sglang-conformance``.

It points collection at the level modules of the installed package, marks
each collected clause (its id becomes a ``-k`` keyword and a
``user_properties`` entry), applies the expectations file, and writes the
report header, the terminal summary and the JSON report.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sglang.conformance import _fixtures
from sglang.conformance._clauses import CLAUSES, clause_of
from sglang.conformance._expect import Expectations, ExpectationsError, load_expectations
from sglang.conformance._report import (
    CLAUSE_PROPERTY,
    COUNTING,
    Outcomes,
    counts_line,
    report_document,
    write_report,
)
from sglang.conformance._stash import SUITE_KEY
from sglang.conformance._target import (
    Target,
    build_targets,
    prepare_environment,
    serve_backend_names,
)

__all__ = ["LEVEL_MODULES", "SUITE_VERSION", "Suite", "configure"]

SUITE_VERSION = "1.2"
"""The version of the clause set; it changes whenever a clause is added or its rule changes."""

LEVEL_MODULES = (
    "test_activation.py",
    "test_contract.py",
    "test_device.py",
    "test_subsystems.py",
    "test_prefix_sharing.py",
    "test_ops.py",
    "test_lifecycle.py",
    "test_end_to_end.py",
    "test_serve.py",
)
"""The level modules, in level order, in :mod:`sglang.conformance.levels`."""

LEVELS_DIR = Path(__file__).resolve().parent / "levels"


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


class Suite:
    """One conformance run: its options, targets, expectations and outcomes."""

    def __init__(self, config: pytest.Config) -> None:
        runtime = str(config.getoption("sglang_runtime"))
        self.runtime_option = runtime
        self.runtimes: tuple[str, ...] = ("srt", "diffusion") if runtime == "all" else (runtime,)
        try:
            self.expectations: Expectations = load_expectations(
                config.getoption("sglang_conformance_expect")
            )
        except ExpectationsError as exc:
            raise pytest.UsageError(str(exc)) from None
        prepare_environment(config.getoption("sglang_platform"), self.runtimes, os.environ)
        self.targets: dict[str, Target] = build_targets(self.runtimes)
        self.serve_backends = serve_backend_names(
            list(config.getoption("sglang_serve_backends") or []), runtime
        )
        self.report_path: str | None = config.getoption("sglang_conformance_report")
        self.outcomes = Outcomes()
        self.other_tests: set[str] = set()
        self.is_worker = hasattr(config, "workerinput")

    def header(self) -> dict[str, object]:
        """The report's fields before ``clauses``: versions, device, runtime, plugin."""
        main = self.targets[self.runtimes[0]]
        record = next((t.entry_point for t in self.targets.values() if t.entry_point), None)
        return {
            "suite_version": SUITE_VERSION,
            "sglang_version": _version("sglang"),
            "torch_version": _version("torch"),
            "device": _device(main),
            "runtime": self.runtime_option,
            "plugin": {
                "entry_point": None if record is None else f"{record.name} = {record.value}",
                "distribution": None if record is None else record.dist_name,
                "version": None if record is None else record.dist_version,
            },
        }

    # -- pytest hooks ----------------------------------------------------------------------

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """The suite's header lines."""
        header = self.header()
        plugin = header["plugin"]
        assert isinstance(plugin, dict)
        lines = [
            f"sglang conformance suite {header['suite_version']}: sglang "
            f"{header['sglang_version']}, torch {header['torch_version']}, "
            f"device {header['device']}",
            f"plugin: entry point {plugin['entry_point']}, distribution "
            f"{plugin['distribution']} {plugin['version']}",
        ]
        lines.extend(f"platform {target.describe()}" for target in self.targets.values())
        if self.serve_backends:
            lines.append(f"serve backends: {', '.join(self.serve_backends)}")
        if self.expectations.source:
            lines.append(f"expectations: {self.expectations.source}")
        lines.append(COUNTING)
        return lines

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Tag each clause's tests and apply the expectations."""
        for item in items:
            found = clause_of(getattr(item, "function", None))
            if found is None:
                continue
            item.user_properties.append((CLAUSE_PROPERTY, found.id))
            item.extra_keyword_matches.update({found.id, found.level.value})
            xfail = self.expectations.xfail.get(found.id)
            if xfail is not None:
                item.add_marker(pytest.mark.xfail(reason=f"expected: {xfail}", strict=True))
            skip = self.expectations.skip.get(found.id)
            if skip is not None:
                item.add_marker(pytest.mark.skip(reason=f"expected: {skip}"))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record the clause outcome of every test phase (and which tests have no clause)."""
        clause_ids = [value for key, value in report.user_properties if key == CLAUSE_PROPERTY]
        for value in clause_ids:
            self.outcomes.add(str(value), report.nodeid, report)
        if not clause_ids:
            self.other_tests.add(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Print the table of clauses by level, and what the expectations file got wrong."""
        if self.is_worker:
            return
        write = terminalreporter.write_line
        terminalreporter.section("sglang conformance")
        level = None
        for clause_id, result in self.outcomes.ordered():
            item = CLAUSES[clause_id]
            if item.level is not level:
                level = item.level
                write(f"{level.value}:")
            write(f"  {clause_id:<7} {result.outcome:<8} {item.rule}")
            if result.outcome != "passed" and result.reasons:
                write(f"  {'':<7} {'':<8} -> {'; '.join(result.reasons)[:300]}")
        write(counts_line(self.outcomes, len(self.other_tests)))
        if self.expectations.unknown:
            unknown = ", ".join(self.expectations.unknown)
            write(f"expectations file names unknown clause ids: {unknown}")
        stale = [
            cid
            for cid in self.expectations.xfail
            if cid in self.outcomes.results
            and self.outcomes.results[cid].outcome == "failed"
            and any(
                "XPASS" in reason or "[XPASS" in reason
                for reason in self.outcomes.results[cid].reasons
            )
        ]
        if stale:
            write(f"stale expected failures (they passed): {', '.join(stale)}")
        if self.report_path:
            write(f"report written to {self.report_path}")

    def pytest_sessionfinish(self) -> None:
        """Write the JSON report (on the controller under pytest-xdist)."""
        if self.report_path and not self.is_worker:
            write_report(self.report_path, report_document(self.outcomes, self.header()))


def _device(target: Target) -> str:
    platform = target.platform
    if platform is None:
        return "unknown (platform selection failed)"
    kind = getattr(platform, "device_type", "?")
    try:
        name = platform.get_device_name(0)  # type: ignore[attr-defined]
    except Exception:
        name = getattr(platform, "device_name", "?")
    return f"{name} ({kind})"


def _suite_args(config: pytest.Config) -> None:
    """Collect the level modules: alone by default, after the paths the user gave."""
    files = [str(LEVELS_DIR / name) for name in LEVEL_MODULES]
    given = config.args_source is pytest.Config.ArgsSource.ARGS
    kept = [arg for arg in config.args if arg not in files] if given else []
    config.args[:] = [*kept, *files]


def configure(config: pytest.Config) -> None:
    """Set the suite up for this run (called from the plugin's ``pytest_configure``)."""
    if SUITE_KEY in config.stash:
        return
    suite = Suite(config)
    config.stash[SUITE_KEY] = suite
    _suite_args(config)
    config.pluginmanager.register(suite, "sglang-conformance-session")
    config.pluginmanager.register(_fixtures, "sglang-conformance-fixtures")
