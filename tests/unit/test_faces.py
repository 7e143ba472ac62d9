"""The curated faces of ``sglang.runtime`` and its subpackages.

Each face lists its public names in ``__all__``; every one of them resolves
(on first access, for the lazy faces), the lazy faces declare the same names
for type checkers, and importing a lazy face imports none of the modules
behind it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from types import ModuleType

import pytest

from tests.support.dists import run_python

FACES = [
    "sglang.runtime",
    "sglang.runtime.selection",
    "sglang.runtime.plugins",
    "sglang.runtime.hooks",
    "sglang.runtime.builtin",
    "sglang.runtime.http",
    "sglang.conformance",
]
LAZY_FACES = [
    "sglang.runtime",
    "sglang.runtime.selection",
    "sglang.runtime.builtin",
    "sglang.runtime.http",
    "sglang.conformance",
]


def type_checking_names(module: ModuleType) -> set[str]:
    """The names a face imports inside ``if TYPE_CHECKING:`` (what type checkers see)."""
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for child in ast.walk(node):
                if isinstance(child, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in child.names)
    return names


@pytest.mark.parametrize("face", FACES)
def test_every_listed_name_resolves_and_is_documented(face: str) -> None:
    module = importlib.import_module(face)
    assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
    for name in module.__all__:
        value = getattr(module, name)
        assert name in dir(module)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{face}.{name} has no docstring"


@pytest.mark.parametrize("face", LAZY_FACES)
def test_a_lazy_face_declares_its_names_for_type_checkers(face: str) -> None:
    module = importlib.import_module(face)
    assert type_checking_names(module) == set(module.__all__)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = module.no_such_name


@pytest.mark.parametrize("face", LAZY_FACES)
def test_importing_a_lazy_face_imports_nothing_behind_it(face: str) -> None:
    result = run_python(
        f"""
        import json, sys
        before = set(sys.modules)
        import {face}
        print(json.dumps(sorted(m for m in set(sys.modules) - before if m.startswith("sglang"))))
        """
    ).check()
    parents = {".".join(face.split(".")[:i]) for i in range(1, face.count(".") + 2)}
    loaded = set(json.loads(result.stdout)) - parents
    assert loaded <= {"sglang._version", "sglang.runtime", "sglang.runtime._lazy"}, loaded
