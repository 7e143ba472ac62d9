"""The typing corpus: plugin snippets checked by mypy --strict AND pyright strict.

``cases/ok_*.py`` are snippets a vendor would write; both checkers must accept
them without a single error. ``cases/bad_*.py`` are mistakes a vendor could
make; each offending line carries a trailing ``# expect-error`` comment, and
both checkers must report an error on exactly those lines (no more, no less).

Each checker runs once over a copy of the whole corpus (module-scoped
fixtures); the per-snippet tests then compare its diagnostics with the
markers. The copy lives outside the repository so that neither checker
picks up ``pyproject.toml``, which excludes the corpus from the gates.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.dists import run_python

CASES_DIR = Path(__file__).resolve().parent / "cases"
MARKER = re.compile(r"#\s*expect-error\s*$")
CHECKERS = ("mypy", "pyright")
CASES = sorted(p.name for p in CASES_DIR.glob("*.py"))
OK_CASES = [name for name in CASES if name.startswith("ok_")]
BAD_CASES = [name for name in CASES if name.startswith("bad_")]

MYPY_INI = """\
[mypy]
strict = True
python_version = 3.10
warn_unreachable = True
"""

PYRIGHT_CONFIG = {
    "include": ["."],
    "exclude": [".mypy_cache"],
    "typeCheckingMode": "strict",
    "pythonVersion": "3.10",
    "reportMissingModuleSource": False,
}


@dataclass(frozen=True)
class Diagnostic:
    """One error a checker reported, located by file name and 1-based line."""

    checker: str
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.checker}: {self.file}:{self.line}: {self.message}"


Diagnostics = Mapping[str, Mapping[int, list[Diagnostic]]]
"""file name -> line -> the errors reported there."""


def expected_lines(name: str) -> set[int]:
    """The 1-based lines of *name* that carry an ``# expect-error`` marker."""
    text = (CASES_DIR / name).read_text(encoding="utf-8")
    return {no for no, line in enumerate(text.splitlines(), start=1) if MARKER.search(line)}


def group(diagnostics: list[Diagnostic]) -> Diagnostics:
    """Index *diagnostics* by file name and line."""
    table: defaultdict[str, defaultdict[int, list[Diagnostic]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for diagnostic in diagnostics:
        table[diagnostic.file][diagnostic.line].append(diagnostic)
    return table


def run_checker(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a checker in *cwd*; a crash or a configuration error fails the run."""
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode not in (0, 1):
        raise AssertionError(
            f"{' '.join(argv)} exited {proc.returncode}\n--- stdout\n{proc.stdout[-5000:]}"
            f"\n--- stderr\n{proc.stderr[-5000:]}"
        )
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the cases with a mypy and a pyright config of their own."""
    root = tmp_path_factory.mktemp("typing_corpus")
    for name in CASES:
        shutil.copyfile(CASES_DIR / name, root / name)
    (root / "mypy.ini").write_text(MYPY_INI, encoding="utf-8")
    (root / "pyrightconfig.json").write_text(json.dumps(PYRIGHT_CONFIG), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def mypy_diagnostics(corpus: Path) -> Diagnostics:
    """Run ``mypy --strict`` once over every case; return its errors."""
    argv = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        "mypy.ini",
        "--cache-dir",
        str(corpus / ".mypy_cache"),
        "--output",
        "json",
        *CASES,
    ]
    proc = run_checker(argv, corpus)
    found: list[Diagnostic] = []
    for raw in proc.stdout.splitlines():
        if not raw.startswith("{"):
            continue
        record = json.loads(raw)
        if record["severity"] != "error":
            continue
        message = f"{record['message']} [{record.get('code')}]"
        found.append(Diagnostic("mypy", Path(record["file"]).name, record["line"], message))
    if proc.returncode == 1 and not found:
        raise AssertionError(f"mypy failed without a parsable error:\n{proc.stdout}")
    return group(found)


@pytest.fixture(scope="module")
def pyright_diagnostics(corpus: Path) -> Diagnostics:
    """Run pyright (strict) once over every case; return its errors."""
    argv = [
        sys.executable,
        "-m",
        "pyright",
        "--outputjson",
        "--pythonpath",
        sys.executable,
        "-p",
        "pyrightconfig.json",
    ]
    proc = run_checker(argv, corpus)
    report = json.loads(proc.stdout)
    analyzed = report["summary"]["filesAnalyzed"]
    assert analyzed == len(CASES), f"pyright analyzed {analyzed} files, expected {len(CASES)}"
    found: list[Diagnostic] = []
    for record in report["generalDiagnostics"]:
        if record["severity"] != "error":
            continue
        line = record["range"]["start"]["line"] + 1
        rule = record.get("rule", "")
        message = record["message"].splitlines()[0] + (f" ({rule})" if rule else "")
        found.append(Diagnostic("pyright", Path(record["file"]).name, line, message))
    return group(found)


def mismatches(checker: str, name: str, reported: Diagnostics) -> list[str]:
    """Describe every marked line without an error and every unmarked error."""
    expected = expected_lines(name)
    by_line = reported.get(name, {})
    problems = [
        f"{checker}: {name}:{line}: expected an error (# expect-error), none reported"
        for line in sorted(expected - set(by_line))
    ]
    problems += [
        f"unexpected error: {diagnostic}"
        for line in sorted(set(by_line) - expected)
        for diagnostic in by_line[line]
    ]
    return problems


@pytest.mark.parametrize("checker", CHECKERS)
@pytest.mark.parametrize("name", CASES)
def test_case(name: str, checker: str, request: pytest.FixtureRequest) -> None:
    reported: Diagnostics = request.getfixturevalue(f"{checker}_diagnostics")
    problems = mismatches(checker, name, reported)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", OK_CASES)
def test_ok_case_runs(name: str) -> None:
    """What the checkers accept also runs: typing and runtime validation agree."""
    code = f"import runpy; runpy.run_path({str(CASES_DIR / name)!r}, run_name='corpus_case')"
    run_python(code).check()


def test_no_diagnostics_outside_the_cases(
    mypy_diagnostics: Diagnostics, pyright_diagnostics: Diagnostics
) -> None:
    strays = [
        str(diagnostic)
        for reported in (mypy_diagnostics, pyright_diagnostics)
        for file, lines in reported.items()
        if file not in CASES
        for diagnostics in lines.values()
        for diagnostic in diagnostics
    ]
    assert not strays, "\n".join(strays)


def test_corpus_shape() -> None:
    assert len(OK_CASES) >= 5, OK_CASES
    assert len(BAD_CASES) >= 12, BAD_CASES
    assert set(CASES) == set(OK_CASES) | set(BAD_CASES), "cases are named ok_*.py or bad_*.py"
    for name in OK_CASES:
        assert not expected_lines(name), f"{name}: an ok case must not carry # expect-error"
    for name in BAD_CASES:
        assert expected_lines(name), f"{name}: a bad case must mark its offending lines"


@pytest.mark.parametrize(
    "required",
    [
        "bad_activate_returns_int.py",
        "bad_serve_api_version.py",
        "bad_contract_versions.py",
        "bad_around_hook_params.py",
        "bad_platform_missing_method.py",
        "bad_before_hook_shape.py",
    ],
)
def test_required_mistakes_are_covered(required: str) -> None:
    assert required in BAD_CASES


@pytest.mark.parametrize(
    "path",
    [
        "sglang.sdk",
        "sglang.srt.platforms.device_mixin",
        "sglang.srt.platforms.interface",
        "sglang.multimodal_gen.runtime.platforms",
        "sglang.multimodal_gen.runtime.platforms.interface",
        "sglang.cli.serve_backends",
        "sglang.srt.plugins.hook_registry",
        "sglang.multimodal_gen.runtime.platforms.plugins",
    ],
)
def test_ok_cases_import_every_documented_path(path: str) -> None:
    sources = "\n".join((CASES_DIR / name).read_text(encoding="utf-8") for name in OK_CASES)
    pattern = rf"^(from {re.escape(path)} import |import {re.escape(path)}\b)"
    assert re.search(pattern, sources, re.MULTILINE), f"no ok case imports {path}"
