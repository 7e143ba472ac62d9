"""Make the example importable from its source folder, without putting the folder on sys.path.

The folder may hold the ``*.egg-info`` of an editable install: on ``sys.path``
it would show the example's entry points to every later test of the process.
"""

import importlib.util
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "my_general_plugin"
if importlib.util.find_spec(PACKAGE.name) is None:
    spec = importlib.util.spec_from_file_location(
        PACKAGE.name, PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)]
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE.name] = module
    spec.loader.exec_module(module)
