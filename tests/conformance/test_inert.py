"""Installing sglang changes nothing in a pytest run without ``--sglang-conformance``.

A trivial test file in an empty folder is run by the plugin-free venv's
pytest twice: as installed (the ``pytest11`` entry point loads the plugin)
and with the plugin disabled (``-p no:sglang_conformance``, as if sglang
were not installed). The outcome and the header are the same, except that
the installed run lists the sglang plugin; nothing the suite needs (its
session module, torch) is imported.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.support.isolation import clean_environment, plugin_free_env

TRIVIAL = """
import sys

def test_trivial():
    assert 1 + 1 == 2

def test_suite_stays_unloaded():
    assert "sglang.conformance._session" not in sys.modules
    assert "torch" not in sys.modules
"""


def _pytest(folder: Path, *args: str) -> str:
    proc = subprocess.run(
        [str(clean_environment().python), "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=plugin_free_env(),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _normalised(output: str) -> list[str]:
    lines = [re.sub(r" in [0-9.]+s", " in Xs", line) for line in output.splitlines()]
    return [line for line in lines if not line.startswith("plugins:")]


def test_a_normal_run_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "test_trivial.py").write_text(TRIVIAL, encoding="utf-8")
    installed = _pytest(tmp_path, "-v")
    without = _pytest(tmp_path, "-v", "-p", "no:sglang_conformance")
    assert "sglang-0.1.0" in next(
        line for line in installed.splitlines() if line.startswith("plugins:")
    )
    assert _normalised(installed) == _normalised(without)
    assert "2 passed" in installed


def test_the_options_exist_only_with_the_plugin(tmp_path: Path) -> None:
    assert "--sglang-conformance" in _pytest(tmp_path, "--help")
    assert "--sglang-conformance" not in _pytest(tmp_path, "--help", "-p", "no:sglang_conformance")
