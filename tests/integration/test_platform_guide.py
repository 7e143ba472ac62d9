"""The platform guide's quick start, assembled from the page as a reader copies it.

Every file the guide shows is a whole file named by its caption, or a part
marked ``part of FILE`` (:mod:`tests.support.guides`); the quick start's
files, written into the folders its drawing shows, are the package. It is
tested as a vendor would: ``pytest --sglang-conformance`` on it, once as
the guide shows it and once without its ``get_available_memory()`` (the
seed guide's mixin), which type-checks and selects but cannot serve with
``sglang serve``'s default flags: the end-to-end level fails, naming it.
(``tests/integration/test_guide_blocks.py`` installs the same assembly with
the guide's ``pip install`` and runs its verification command.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conformance.harness import run_suite
from tests.support.examples import project_dist
from tests.support.guides import PART_OF, Include, assemble, includes, tree

PAGE = "guides/platforms.rst"
PROJECT = "my_platform_plugin"
PRESENT = {"MY_DEVICE_AVAILABLE": "1", "SGLANG_PLATFORM": "my_device"}


def assemble_quick_start(dest: Path) -> Path:
    """Write the guide's quick-start package into ``dest/my_platform_plugin``; return it."""
    folder = dest / PROJECT
    assemble(PAGE, PROJECT, folder)
    return folder


@pytest.mark.parametrize("item", includes(), ids=[item.id for item in includes()])
def test_every_included_file_is_whole_or_a_named_part(item: Include) -> None:
    assert item.caption, f"{item.id}: name the file it shows with :caption:"
    assert item.path.as_posix().endswith(f"/{item.named_file}"), (
        f"{item.id}: the caption {item.caption!r} does not name {item.path}"
    )
    assert item.caption.startswith(PART_OF) == (not item.whole), (
        f"{item.id}: a part of a file is captioned '{PART_OF}FILE', a whole file 'FILE'"
    )


def test_the_quick_start_drawing_lists_exactly_the_files_shown(tmp_path: Path) -> None:
    written = set(assemble(PAGE, PROJECT, tmp_path))
    assert written == set(tree(PAGE, PROJECT)), "the drawing and the files shown differ"
    assert {"pyproject.toml", "my_platform_plugin/__init__.py"} <= written
    source = (tmp_path / "my_platform_plugin/__init__.py").read_text("utf-8")
    assert "def _my_device_is_available" in source  # the helper activate() calls
    assert "import os" in source


def _without_method(path: Path, cls: str, method: str) -> None:
    """Remove *method* from class *cls* in the file *path* (a reader who skipped it)."""
    text = path.read_text("utf-8")
    (node,) = [
        item
        for top in ast.parse(text).body
        if isinstance(top, ast.ClassDef) and top.name == cls
        for item in top.body
        if isinstance(item, ast.FunctionDef) and item.name == method
    ]
    assert node.end_lineno is not None
    lines = text.splitlines(keepends=True)
    del lines[node.lineno - 1 : node.end_lineno]
    path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(
    "with_memory", [False, True], ids=["without get_available_memory", "as the guide shows it"]
)
def test_conformance_predicts_a_default_serve(tmp_path: Path, with_memory: bool) -> None:
    package = assemble_quick_start(tmp_path / "src")
    if not with_memory:
        _without_method(package / PROJECT / "device.py", "MyDeviceMixin", "get_available_memory")
        assert "get_available_memory" not in (package / PROJECT / "device.py").read_text()
    run = run_suite(tmp_path / "run", dists=[project_dist(package)], sources=[package], env=PRESENT)
    assert run.report["plugin"]["distribution"] == "my-platform-plugin"
    passed = {cid for cid, outcome in run.outcome_map().items() if outcome == "passed"}
    assert len(passed) > 20, run.output[-4000:]  # every other level holds either way
    if with_memory:
        assert run.returncode == 0, run.output[-6000:]
        assert run.failed() == set()
        assert "E2E-01" in passed
        return
    assert run.returncode == 1
    assert run.failed() == {"E2E-01"}, run.output[-6000:]
    (item,) = [c for c in run.report["clauses"] if c["id"] == "E2E-01"]
    first = item["reason"].splitlines()[0]
    assert "NotImplementedError: MySRTPlatform does not implement get_available_memory()" in (
        first
    ), item["reason"][:2000]
