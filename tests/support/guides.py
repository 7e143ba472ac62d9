"""The code blocks of the documentation pages, each with the marker comment right above it.

A block is a ``.. code-block:: LANGUAGE`` directive of ``docs/index.rst`` or
``docs/guides/*.rst``. An rst comment on the last non-blank line above it
says how the tests treat it:

* ``.. not-run: REASON``: it is not executed (the reason must say why);
* ``.. run-by: PATH``: the test module or script at *PATH* (relative to
  the repository root) executes it.

A block without a marker is executed by the test of its language
(``tests/unit/test_docs_examples.py`` for Python).

A ``.. literalinclude::`` (an :class:`Include`) shows a file of the
repository; its ``:caption:`` names that file as a reader's project has
it (``my_platform_plugin/pyproject.toml``), prefixed with ``part of`` when
an option selects only a part of it. :func:`assemble` writes the whole
files a page shows, as a reader copies them.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from tests.support.dists import REPO_ROOT

if TYPE_CHECKING:
    from sphinx.config import Config

__all__ = [
    "DOCS",
    "PAGES",
    "PART_OF",
    "SELECTING",
    "Block",
    "Include",
    "assemble",
    "blocks",
    "includes",
    "tree",
]

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


_INCLUDE = re.compile(r"^(?P<indent>\s*)\.\. literalinclude:: (?P<path>\S+)\s*$")
_OPTION = re.compile(r"^\s+:(?P<name>[\w-]+):(?:\s+(?P<value>.*?))?\s*$")
SELECTING = frozenset({"pyobject", "lines", "start-at", "start-after", "end-at", "end-before"})
"""The ``literalinclude`` options that show only a part of the file."""
PART_OF = "part of "
"""The caption prefix of an include that shows a part of its file."""


@dataclass(frozen=True)
class Include:
    """One ``.. literalinclude::`` of a page.

    Attributes:
        page: The page, relative to ``docs/``.
        line: The directive's line number (1-based).
        path: The included file.
        options: The directive's options (name -> value, ``""`` for a flag).
    """

    page: str
    line: int
    path: Path
    options: Mapping[str, str]

    @property
    def id(self) -> str:
        """``page:line``, for test ids and messages."""
        return f"{self.page}:{self.line}"

    @property
    def caption(self) -> str:
        """The ``:caption:`` (``""`` when it has none)."""
        return self.options.get("caption", "")

    @property
    def whole(self) -> bool:
        """Whether the page shows the whole file (no option selects a part)."""
        return not SELECTING & set(self.options)

    @property
    def named_file(self) -> str:
        """The file the caption names, without its ``part of`` prefix."""
        return self.caption.removeprefix(PART_OF)

    @property
    def text(self) -> str:
        """What the page shows, read by Sphinx's own ``literalinclude`` reader."""
        from sphinx.directives.code import LiteralIncludeReader

        config = cast("Config", SimpleNamespace(source_encoding="utf-8"))
        text, _lines = LiteralIncludeReader(self.path, dict(self.options), config).read()
        return text


def _page_includes(path: Path) -> list[Include]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Include] = []
    for number, line in enumerate(lines):
        match = _INCLUDE.match(line)
        if match is None:
            continue
        options: dict[str, str] = {}
        for following in lines[number + 1 :]:
            option = _OPTION.match(following)
            if option is None:
                break
            options[option["name"]] = option["value"] or ""
        found.append(
            Include(
                page=path.relative_to(DOCS).as_posix(),
                line=number + 1,
                path=(path.parent / match["path"]).resolve(),
                options=options,
            )
        )
    return found


def includes(page: str | None = None) -> list[Include]:
    """Every include of :data:`PAGES` (of *page*, relative to ``docs/``, when given)."""
    found = [item for path in PAGES for item in _page_includes(path)]
    return [item for item in found if page is None or item.page == page]


_TREE_LINE = re.compile(r"^(?P<prefix>[ │├└─]*)(?P<name>[^\s#]+)\s*(?:#\s*(?P<comment>.*))?$")


def tree(page: str, project: str) -> dict[str, str]:
    """The files of the ``text`` block of *page* that draws the folder *project*.

    Return each file's path relative to the project folder, with the
    comment the drawing gives it (``""`` for none).
    """
    (drawing,) = [
        block
        for block in blocks("text")
        if block.page == page and block.code.startswith(f"{project}/\n")
    ]
    files: dict[str, str] = {}
    folders: list[str] = []
    for line in drawing.code.splitlines()[1:]:
        match = _TREE_LINE.match(line)
        assert match is not None, f"{drawing.id}: cannot read the line {line!r}"
        depth = len(match["prefix"]) // 4  # "├── " and "│   " are four wide
        del folders[depth - 1 :]
        if match["name"].endswith("/"):
            folders.append(match["name"].rstrip("/"))
        else:
            files["/".join([*folders, match["name"]])] = (match["comment"] or "").strip()
    return files


def assemble(page: str, project: str, dest: Path) -> list[str]:
    """Write the project *project* as a reader copies it from *page*, into *dest*.

    That is the whole files *page* shows whose caption starts with
    ``project/``, and an empty file for each file its drawing of the folder
    comments ``empty``. Return the paths written, relative to *dest*.
    """
    written: list[str] = []
    for item in includes(page):
        if item.whole and item.caption.startswith(f"{project}/"):
            relpath = item.caption.removeprefix(f"{project}/")
            (dest / relpath).parent.mkdir(parents=True, exist_ok=True)
            (dest / relpath).write_text(item.text, encoding="utf-8")
            written.append(relpath)
    for relpath, comment in tree(page, project).items():
        if comment == "empty" and relpath not in written:
            (dest / relpath).parent.mkdir(parents=True, exist_ok=True)
            (dest / relpath).write_text("", encoding="utf-8")
            written.append(relpath)
    return written
