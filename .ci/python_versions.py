"""Print the oldest and newest Python the project supports, after checking they agree.

``requires-python`` gives the oldest (``>=3.10``); the newest is the highest
``Programming Language :: Python :: 3.N`` classifier. The static gates are
configured for the oldest (ruff's ``target-version``, mypy's
``python_version``, pyright's ``pythonVersion``), and ``.ci/run`` runs mypy
and pyright once more for the newest, since CI has only one interpreter.
Exit 1 with a message naming the setting that disagrees.
"""

from __future__ import annotations

import re
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _setting(text: str, table: str, key: str) -> str:
    """The string value of *key* in ``[table]`` of *text* (no tomllib on Python 3.10)."""
    section = re.search(rf"^\[{re.escape(table)}\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = re.search(rf'^{re.escape(key)}\s*=\s*"([^"]*)"', section[1] if section else "", re.M)
    if found is None:
        raise SystemExit(f"error: pyproject.toml has no {key} in [{table}]")
    return found[1]


def versions(text: str) -> tuple[str, str]:
    """``(oldest, newest)`` of *text* (a pyproject.toml); ``SystemExit`` when settings disagree."""
    floor = re.fullmatch(r">=\s*(3\.\d+)", _setting(text, "project", "requires-python"))
    if floor is None:
        raise SystemExit("error: requires-python must read '>=3.N'")
    oldest = floor[1]
    minors = re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', text)
    if not minors:
        raise SystemExit("error: no 'Programming Language :: Python :: 3.N' classifier")
    if f"3.{min(map(int, minors))}" != oldest:
        raise SystemExit(f"error: the oldest version classifier is not requires-python's {oldest}")
    expected = {
        ("tool.ruff", "target-version"): f"py{oldest.replace('.', '')}",
        ("tool.mypy", "python_version"): oldest,
        ("tool.pyright", "pythonVersion"): oldest,
    }
    for (table, key), value in expected.items():
        if _setting(text, table, key) != value:
            raise SystemExit(f"error: [{table}] {key} must be {value!r} (requires-python {oldest})")
    return oldest, f"3.{max(map(int, minors))}"


if __name__ == "__main__":
    print(*versions(PYPROJECT.read_text(encoding="utf-8")))
