"""The serve command's modules and the in-tree backends import no torch.

Also: the serve help path imports neither :mod:`logging` nor :mod:`psutil`
(it does read the llm backend's server-argument dataclass, for its options).
"""

from __future__ import annotations

import json

import pytest

from tests.support.dists import run_python
from tests.unit.test_import_cost import explain, heavy_imports

SERVE_MODULES = [
    "sglang.cli.serve",
    "sglang.cli.serve._command",
    "sglang.cli.serve._routing",
    "sglang.cli.serve._validate",
    "sglang.cli.serve._cleanup",
    "sglang.srt.entrypoints.serve_backend",
    "sglang.multimodal_gen.runtime.entrypoints",
    "sglang.multimodal_gen.runtime.entrypoints.serve_backend",
    "sglang.runtime.optional",
]


@pytest.mark.parametrize("module", SERVE_MODULES)
def test_serve_module_does_not_import_torch(module: str) -> None:
    loaded, stacks = heavy_imports(module)
    assert loaded == [], explain(loaded, stacks)


def test_serve_help_imports_only_what_it_uses() -> None:
    result = run_python(
        """
        import contextlib, io, json, sys
        before = set(sys.modules)
        from sglang.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["serve", "--help"])
        new = set(sys.modules) - before
        print(json.dumps([code, sorted(m for m in new if m.split(".")[0] in
              ("logging", "psutil", "torch", "fastapi", "uvicorn", "pydantic"))]))
        """
    ).check()
    code, heavy = json.loads(result.stdout.strip().splitlines()[-1])
    assert code == 0
    assert heavy == []


def test_the_backend_factories_return_checked_backends() -> None:
    result = run_python(
        """
        from sglang.cli.serve import BUILTIN_BACKENDS, read_registry
        registry = read_registry()
        for record in registry.records():
            loaded = registry.load(record)
            print(loaded.name, loaded.backend.api_version, loaded.backend.detect is not None)
        """
    ).check()
    assert result.stdout.split("\n")[:2] == ["llm 1 False", "diffusion 1 True"]
