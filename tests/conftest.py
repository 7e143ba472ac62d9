"""Shared fixtures: real distributions on ``sys.path``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.runtime import discovery
from tests.support.dists import Site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    """A fresh site folder, prepended to ``sys.path`` for the test's duration.

    Modules imported from it are removed from ``sys.modules`` afterwards, and
    the entry-point index is refreshed on both sides.
    """
    result = Site(tmp_path / "site")
    root = str(result.root)
    before = set(sys.modules)
    sys.path.insert(0, root)
    discovery.refresh()
    try:
        yield result
    finally:
        sys.path.remove(root)
        for name in set(sys.modules) - before:
            module = sys.modules.get(name)
            file = getattr(module, "__file__", None) or ""
            if file.startswith(root):
                del sys.modules[name]
        discovery.refresh()
