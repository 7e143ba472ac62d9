"""Shared fixtures: real distributions on ``sys.path``, isolated from installed plugins.

Before any test runs, this process's ``site-packages`` entries on
``sys.path`` are replaced by a view without the other distributions that
declare ``sglang.*`` entry points (:mod:`tests.support.isolation`), so the
plugins installed on the machine cannot change an outcome.

A conformance run (``pytest --sglang-conformance``) from the repository
root loads this file too (``testpaths`` names ``tests``), but it is no run
of this suite: it tests the plugins installed on the machine, so nothing
is hidden from it (:func:`conformance_run`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.runtime import discovery
from sglang.sdk.constants import ENV_CHECK_KV_ACCOUNTING
from tests.support.dists import Site
from tests.support.isolation import clean_environment, isolate_sys_path


def conformance_run(config: pytest.Config) -> bool:
    """Whether this is a ``pytest --sglang-conformance`` run rather than a run of this suite."""
    return bool(config.getoption("sglang_conformance", default=False))


def pytest_configure(config: pytest.Config) -> None:
    """Swap the installed plugins out of ``sys.path``; check KV accounting every step."""
    if conformance_run(config):
        return
    isolate_sys_path(clean_environment())
    # Every scheduler the tests start (and the spawned ones inherit it) proves after
    # each step that no KV page is lost or counted twice.
    os.environ[ENV_CHECK_KV_ACCOUNTING] = "1"
    discovery.refresh()


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say which installed plugin distributions the suite does not see."""
    if conformance_run(config):
        return None
    hidden = ", ".join(clean_environment().hidden) or "none"
    return f"installed sglang plugins hidden from the tests: {hidden}"


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
