"""``requires-python`` and the static gates agree, and CI checks the newest version too."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from tests.support.dists import REPO_ROOT

CI = REPO_ROOT / ".ci"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("python_versions", CI / "python_versions.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_gates_target_the_oldest_version_and_ci_checks_both() -> None:
    text = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert _module().versions(text) == ("3.10", "3.13")
    run = (CI / "run").read_text("utf-8")
    assert 'for version in "$oldest" "$newest"; do' in run
    assert 'mypy --strict --python-version "$version"' in run
    assert 'pyright --pythonversion "$version"' in run


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('target-version = "py310"', 'target-version = "py311"', "[tool.ruff] target-version"),
        ('python_version = "3.10"', 'python_version = "3.11"', "[tool.mypy] python_version"),
        ('pythonVersion = "3.10"', 'pythonVersion = "3.12"', "[tool.pyright] pythonVersion"),
        ('"Programming Language :: Python :: 3.10",\n', "", "oldest version classifier"),
    ],
)
def test_a_setting_that_disagrees_is_named(old: str, new: str, message: str) -> None:
    text = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert old in text
    with pytest.raises(SystemExit, match=message.replace("[", r"\[").replace("]", r"\]")):
        _module().versions(text.replace(old, new))
