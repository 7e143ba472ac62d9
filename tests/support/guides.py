"""The code blocks of the documentation pages, each with the marker comment right above it.

A block is a ``.. code-block:: LANGUAGE`` directive of ``docs/index.rst`` or
``docs/guides/*.rst``. An rst comment on the last non-blank line above it
says how the tests treat it:

* ``.. not-run: REASON``: it is not executed (the reason must say why);
* ``.. run-by: PATH``: the test module or script at *PATH* (relative to
  the repository root) executes it.

A block without a marker is executed by the test of its language
(``tests/unit/test_docs_examples.py`` for Python).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.support.dists import REPO_ROOT

__all__ = ["DOCS", "PAGES", "Block", "blocks"]

DOCS = REPO_ROOT / "docs"
PAGES = (DOCS / "index.rst", *sorted((DOCS / "guides").glob("*.rst")))
"""The pages whose blocks are checked: the landing page and every guide."""

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. code-block:: (?P<language>\S+)\s*$")
_MARKER = re.compile(r"^\s*\.\. (?P<kind>not-run|run-by):(?P<value>.*)$")


@dataclass(frozen=True)
class Block:
    """One code block of a page.

    Attributes:
        page: The page, relative to ``docs/`` (``"guides/hooks.rst"``).
        line: The directive's line number (1-based).
        language: The directive's language (``"python"``, ``"bash"``, ...).
        code: The block's text, dedented.
        marker: ``("not-run", reason)``, ``("run-by", path)`` or ``None``.
    """

    page: str
    line: int
    language: str
    code: str
    marker: tuple[str, str] | None

    @property
    def id(self) -> str:
        """``page:line``, for test ids and messages."""
        return f"{self.page}:{self.line}"

    @property
    def not_run(self) -> str | None:
        """The reason of a ``not-run`` marker (``""`` when it gives none), else ``None``."""
        return self.marker[1] if self.marker and self.marker[0] == "not-run" else None

    @property
    def run_by(self) -> str | None:
        """The path of a ``run-by`` marker, else ``None``."""
        return self.marker[1] if self.marker and self.marker[0] == "run-by" else None


def _page_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
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
        marker = _MARKER.match(previous[-1]) if previous else None
        found.append(
            Block(
                page=path.relative_to(DOCS).as_posix(),
                line=number + 1,
                language=match["language"],
                code=textwrap.dedent("\n".join(body)).strip() + "\n",
                marker=(marker["kind"], marker["value"].strip()) if marker else None,
            )
        )
    return found


def blocks(language: str | None = None) -> list[Block]:
    """Every block of :data:`PAGES` (of *language*, when given), in page order."""
    found = [block for page in PAGES for block in _page_blocks(page)]
    return [block for block in found if language is None or block.language == language]
