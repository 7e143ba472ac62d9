"""Every Python example in the guides runs.

Each ``.. code-block:: python`` of ``docs/guides/*.rst`` is executed in a
fresh interpreter with the example packages importable. A block that cannot
run here says why in an rst comment right above it
(``.. not-run: <reason>``); the reason must not be empty.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.dists import REPO_ROOT, run_python

GUIDES = REPO_ROOT / "docs" / "guides"
EXAMPLE_ROOTS = sorted(p for p in (REPO_ROOT / "examples").iterdir() if p.is_dir())
_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. code-block:: python\s*$")
_NOT_RUN = re.compile(r"^\s*\.\. not-run:(?P<reason>.*)$")


@dataclass(frozen=True)
class Example:
    guide: str
    line: int
    code: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.guide}:{self.line}"


def _examples(path: Path) -> list[Example]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    for number, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if match is None:
            continue
        indent = len(match["indent"])
        body: list[str] = []
        for following in lines[number + 1 :]:
            if following.strip() and len(following) - len(following.lstrip()) <= indent:
                break
            body.append(following)
        previous = [text for text in lines[:number] if text.strip()]
        marker = _NOT_RUN.match(previous[-1]) if previous else None
        found.append(
            Example(
                guide=path.name,
                line=number + 1,
                code=textwrap.dedent("\n".join(body)).strip() + "\n",
                not_run=marker["reason"].strip() if marker else None,
            )
        )
    return found


EXAMPLES = [example for guide in sorted(GUIDES.glob("*.rst")) for example in _examples(guide)]


def test_guides_have_examples() -> None:
    assert len(EXAMPLES) >= 8
    assert sum(example.not_run is None for example in EXAMPLES) >= 6


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.id for example in EXAMPLES])
def test_guide_example_runs(example: Example) -> None:
    if example.not_run is not None:
        assert example.not_run, f"{example.id}: a not-run example must say why"
        pytest.skip(f"not run: {example.not_run}")
    result = run_python(
        example.code, path=EXAMPLE_ROOTS, env={"SGLANG_USE_CPU_ENGINE": "1"}, timeout=180
    )
    assert result.returncode == 0, (
        f"{example.id} failed\n--- code\n{example.code}--- stderr\n{result.stderr}"
    )
