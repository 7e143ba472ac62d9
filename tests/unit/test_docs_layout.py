"""The docs as a reader meets them: the sidebar's order, the constants table's values."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

from sglang.sdk import constants
from tests.support.dists import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def _docs_extension() -> ModuleType:
    path = DOCS / "_ext" / "sglang_docs.py"
    spec = importlib.util.spec_from_file_location("sglang_docs", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _toctrees() -> list[tuple[str, list[str]]]:
    """``(caption, entries)`` of each toctree of the landing page, in order."""
    found = []
    text = (DOCS / "index.rst").read_text("utf-8")
    for block in re.findall(r"^\.\. toctree::\n((?:   .*\n|\n)+)", text, re.M):
        caption = re.search(r":caption: (.+)", block)
        entries = [line.strip() for line in block.splitlines() if line.strip() and ":" not in line]
        found.append((caption[1] if caption else "", entries))
    return found


def test_the_sidebar_starts_with_the_overview_then_vendor_then_operator_pages() -> None:
    trees = _toctrees()
    captions = [caption for caption, _ in trees]
    assert captions[:4] == ["Start here", "Writing plugins", "Running SGLang", "Reference"]
    guides = [entry for _, entries in trees[:3] for entry in entries]
    assert guides[0] == "guides/overview"
    assert trees[1][1][0] == "guides/vendor-path"  # a vendor's first page
    assert "guides/serving" in trees[2][1]
    # every guide is placed by hand, once (no glob: a glob sorts them alphabetically)
    on_disk = sorted(f"guides/{path.stem}" for path in (DOCS / "guides").glob("*.rst"))
    assert sorted(guides) == on_disk
    assert not any("*" in entry for entry in guides)
    reference = next(entries for caption, entries in trees if caption == "Reference")
    assert reference[0] == "reference/sdk"  # the contract first
    assert sorted(reference) == sorted(
        f"reference/{path.stem}" for path in (DOCS / "reference").glob("*.rst")
    )


def test_the_constants_table_shows_whole_copyable_values() -> None:
    extension = _docs_extension()
    for name in constants.__all__:
        value = getattr(constants, name)
        cell = extension.value_cell(value)
        literals = [child for paragraph in cell for child in paragraph.children]
        # docutils' literal nodes: monospace, and no smart quotes
        assert all(type(child).__name__ == "literal" for child in literals), name
        shown = " ".join(child.astext() for child in literals)
        if isinstance(value, str | int | tuple | frozenset):
            assert eval(shown, {"frozenset": frozenset}) == value, (name, shown)
        else:
            assert shown == repr(value), name
        if isinstance(value, tuple | frozenset) and len(value) > 1:
            assert len(literals) == len(value), f"{name}: one item per line"
