"""Clause outcomes: collected from pytest's reports, summarised, written as JSON.

Every test report carries its clause id in ``user_properties`` (so the
outcomes reach the controller under pytest-xdist as well). A clause tested
for several runtimes or serve backends gets one entry: the worst outcome
(failed, then xfailed, then passed, then skipped) with the reasons of the
runs that did not pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sglang.conformance._clauses import CLAUSES

__all__ = [
    "CLAUSE_PROPERTY",
    "COUNTING",
    "OUTCOMES",
    "ClauseResult",
    "Outcomes",
    "counts_line",
    "report_document",
]

OUTCOMES = ("passed", "failed", "skipped", "xfailed")
"""The outcomes a clause can have, as the JSON report spells them."""

CLAUSE_PROPERTY = "sglang_clause"
"""The ``user_properties`` key holding a test's clause id."""

COUNTING = (
    "counting: the 'clauses:' line counts each clause once, with the worst outcome of its "
    "test cases; pytest's totals count the test cases (a clause runs once per runtime, "
    "serve backend and parameter)"
)
"""The header line that says how the clause summary and pytest's totals relate."""

_RANK = {"failed": 3, "xfailed": 2, "passed": 1, "skipped": 0}


@dataclass
class ClauseResult:
    """One clause's outcome so far.

    Attributes:
        outcome: One of :data:`OUTCOMES`.
        reasons: Why, for runs that did not pass (``"[srt] message"``).
    """

    outcome: str = "skipped"
    reasons: list[str] = field(default_factory=list)
    seen: bool = False


def _message(report: object) -> str:
    """The one-line reason of a skipped or failed report."""
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, "Skipped: ...")
        text = str(longrepr[2])
        return text.removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return str(getattr(crash, "message", "")).strip()
    return str(longrepr or "").strip().splitlines()[-1] if longrepr else ""


def outcome_of(report: object) -> tuple[str, str] | None:
    """Map one pytest report to ``(outcome, reason)``, or ``None`` when it decides nothing."""
    when = getattr(report, "when", "")
    wasxfail = getattr(report, "wasxfail", None)
    if getattr(report, "failed", False):
        return "failed", _message(report)
    if getattr(report, "skipped", False):
        if wasxfail is not None:
            return "xfailed", str(wasxfail)
        return "skipped", _message(report)
    if when == "call" and getattr(report, "passed", False):
        return "passed", ""
    return None


def _short_id(nodeid: str) -> str:
    """``[srt]`` from ``...::test_x[srt]``; empty when the test is not parametrized."""
    return nodeid[nodeid.index("[") :] if nodeid.endswith("]") and "[" in nodeid else ""


class Outcomes:
    """The clause outcomes of one run, fed with pytest reports."""

    def __init__(self) -> None:
        self.results: dict[str, ClauseResult] = {}
        self._per_test: dict[str, tuple[str, str]] = {}

    def add(self, clause_id: str, nodeid: str, report: object) -> None:
        """Record *report* (one phase of the test *nodeid* of clause *clause_id*)."""
        decided = outcome_of(report)
        if decided is None:
            self.results.setdefault(clause_id, ClauseResult())
            return
        previous = self._per_test.get(nodeid)
        if previous is not None and previous[0] == "failed":
            return  # a failed phase decides the test
        self._per_test[nodeid] = decided
        result = self.results.setdefault(clause_id, ClauseResult())
        outcome, reason = decided
        shown = f"{_short_id(nodeid)} {reason}".strip()
        if reason and shown not in result.reasons:  # a subclass in the vendor's tests repeats it
            result.reasons.append(shown)
        if not result.seen or _RANK[outcome] > _RANK[result.outcome]:
            result.outcome = outcome
        result.seen = True

    def summary(self) -> dict[str, int]:
        """``{outcome: count}`` over the clauses, every outcome present."""
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for result in self.results.values():
            counts[result.outcome] += 1
        return counts

    def case_summary(self) -> dict[str, int]:
        """``{outcome: count}`` over the clauses' test cases (what pytest's totals count)."""
        counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        for outcome, _reason in self._per_test.values():
            counts[outcome] += 1
        return counts

    def ordered(self) -> list[tuple[str, ClauseResult]]:
        """The clauses seen, in registry order."""
        return [(cid, self.results[cid]) for cid in CLAUSES if cid in self.results]


def _counts(counts: Mapping[str, int], *, keep_zeros: bool) -> str:
    shown = [f"{n} {outcome}" for outcome, n in counts.items() if n or keep_zeros]
    return ", ".join(shown) or "none"


def counts_line(outcomes: Outcomes, other_tests: int) -> str:
    """The summary's last line: the clause counts, and the test cases they come from.

    *other_tests* is the number of tests without a clause (a vendor's own),
    which pytest's totals count too.
    """
    cases = outcomes.case_summary()
    line = (
        f"clauses: {_counts(outcomes.summary(), keep_zeros=True)} "
        f"(from {sum(cases.values())} test cases: {_counts(cases, keep_zeros=False)}"
    )
    if other_tests:
        line += f"; pytest's totals also count {other_tests} test(s) without a clause"
    return line + ")"


def report_document(outcomes: Outcomes, header: Mapping[str, object]) -> dict[str, object]:
    """The JSON report: *header*'s fields, ``clauses`` and ``summary``."""
    clauses = [
        {
            "id": clause_id,
            "level": CLAUSES[clause_id].level.value,
            "rule": CLAUSES[clause_id].rule,
            "outcome": result.outcome,
            "reason": "; ".join(result.reasons) if result.outcome != "passed" else "",
        }
        for clause_id, result in outcomes.ordered()
    ]
    return {**header, "clauses": clauses, "summary": outcomes.summary()}


def write_report(path: str, document: Mapping[str, object]) -> None:
    """Write *document* to *path* as indented JSON (parent folders created)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
