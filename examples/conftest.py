"""Make every example package importable from its source folder, for the examples' own tests.

Each package is loaded by location (``examples/NAME/PACKAGE``) instead of
putting its folder on ``sys.path``: the folder may hold the
``*.egg-info`` of an editable install, which on ``sys.path`` would show the
example's entry points to every later test of the process.

A conformance run (``pytest --sglang-conformance``) from the repository
root loads this file too (``testpaths`` names ``examples``); it tests what
is installed, so it loads nothing.
"""

import importlib.util
import sys
from pathlib import Path

import pytest


def _load_by_location() -> None:
    for init in sorted(Path(__file__).resolve().parent.glob("*/*/__init__.py")):
        package = init.parent
        # loaded by location even when installed: the test process hides installed plugins
        if package.parent.name == "tests" or package.name in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(
            package.name, init, submodule_search_locations=[str(package)]
        )
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[package.name] = module
        spec.loader.exec_module(module)


def pytest_configure(config: pytest.Config) -> None:
    """Load the example packages before collection, unless this is a conformance run."""
    if not config.getoption("sglang_conformance", default=False):
        _load_by_location()
