"""The registries' overloads: mypy and pyright check a hook against its typed target.

One snippet, written to a temporary folder (outside the repository's
configuration), is checked once by each checker; lines marked
``# expect-error`` must be flagged by both, lines marked
``# expect-error[pyright]`` by pyright only, and no other line by either.

The pyright-only lines are a known mypy limitation: when a plain
``Callable[P, R]`` argument (BEFORE, REPLACE) disagrees with the target's
``P`` in one call, or any hook has fewer parameters than the target (a
classmethod hook written without ``cls``), mypy widens ``P`` to ``...``
instead of reporting it.
mypy still checks the return type there, and checks parameters fully for
AROUND and AFTER hooks and in the decorator form (``@plugin_hook``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SNIPPET = """
from __future__ import annotations

from collections.abc import Callable

from sglang.multimodal_gen.runtime.platforms.plugins import HookRegistry as DiffusionRegistry
from sglang.sdk import BeforeResult
from sglang.srt.plugins.hook_registry import HookRegistry, HookType, hook_target, plugin_hook


class Worker:
    def __init__(self, rank: int) -> None:
        self.rank = rank

    def forward(self, batch: list[int]) -> int:
        return sum(batch)


def scale(x: float, factor: int) -> float:
    return x * factor


def before_ok(x: float, factor: int) -> BeforeResult:
    return None


def after_ok(result: float, x: float, factor: int) -> float | None:
    return result


def after_wrong_result(result: str, x: float, factor: int) -> str | None:
    return result


def around_ok(original: Callable[[float, int], float], x: float, factor: int) -> float:
    return original(x, factor)


def replace_ok(x: float, factor: int) -> float:
    return x


def before_wrong_params(x: str) -> BeforeResult:
    return None


def replace_wrong_return(x: float, factor: int) -> str:
    return str(x)


def forward_around(
    original: Callable[[Worker, list[int]], int], self: Worker, batch: list[int]
) -> int:
    return original(self, batch)


class FastWorker(Worker):
    pass


class Pool:
    @classmethod
    def create(cls, size: int) -> Pool:
        return cls()


def create_around(
    original: Callable[[type[Pool], int], Pool], cls: type[Pool], size: int
) -> Pool:
    return original(cls, size)


def create_replace(cls: type[Pool], size: int) -> Pool:
    return cls()


def create_around_without_cls(original: Callable[[int], Pool], size: int) -> Pool:
    return original(size)


def create_replace_without_cls(size: int) -> Pool:
    return Pool()


class Unrelated:
    def __init__(self, rank: int) -> None:
        pass


target = hook_target(scale)
HookRegistry.register(target, before_ok, HookType.BEFORE)
HookRegistry.register(target, after_ok, HookType.AFTER)
HookRegistry.register(target, around_ok, HookType.AROUND)
HookRegistry.register(target, replace_ok, HookType.REPLACE)
DiffusionRegistry.register(target, around_ok, HookType.AROUND)
HookRegistry.register(hook_target(Worker.forward), forward_around, HookType.AROUND)
HookRegistry.register(hook_target(Worker), FastWorker, HookType.REPLACE)
HookRegistry.register("pkg.mod:anything", print, HookType.AFTER)  # untyped target
create = hook_target(Pool.create, cls=Pool)  # hooks receive cls first
HookRegistry.register(create, create_around, HookType.AROUND)
HookRegistry.register(create, create_replace, HookType.REPLACE)
kept: Callable[[float, int], float] = HookRegistry.register(target, replace_ok, HookType.REPLACE)

HookRegistry.register(target, after_wrong_result, HookType.AFTER)  # expect-error
HookRegistry.register(target, replace_wrong_return, HookType.REPLACE)  # expect-error
HookRegistry.register(target, around_ok, HookType.REPLACE)  # expect-error[pyright]
HookRegistry.register(target, before_wrong_params, HookType.BEFORE)  # expect-error[pyright]
HookRegistry.register(hook_target(Worker), Unrelated, HookType.REPLACE)  # expect-error
DiffusionRegistry.register(target, forward_around, HookType.AROUND)  # expect-error
HookRegistry.register(create, create_around_without_cls, HookType.AROUND)  # expect-error[pyright]
HookRegistry.register(create, create_replace_without_cls, HookType.REPLACE)  # expect-error[pyright]


@plugin_hook(target, type=HookType.AFTER)
def decorated_after(result: float, x: float, factor: int) -> float | None:
    return None


@plugin_hook(target, type=HookType.AFTER)  # expect-error
def decorated_wrong(result: float, x: str, factor: int) -> float | None:
    return None


@plugin_hook(target, type=HookType.REPLACE)  # expect-error
def decorated_replace_wrong(x: str) -> float:
    return 0.0


@plugin_hook(target, type=HookType.BEFORE)  # expect-error
def decorated_before_wrong(x: float) -> BeforeResult:
    return None


@plugin_hook(create, type=HookType.AFTER)
def decorated_create_after(result: Pool, cls: type[Pool], size: int) -> Pool | None:
    return None


@plugin_hook(create, type=HookType.AROUND)  # expect-error
def decorated_create_without_cls(original: Callable[[int], Pool], size: int) -> Pool:
    return original(size)
"""

MARKER = re.compile(r"#\s*expect-error(\[pyright\])?\s*$")


@pytest.fixture(scope="module")
def snippet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hook_typing")
    path = folder / "hooks_snippet.py"
    path.write_text(textwrap.dedent(SNIPPET).lstrip(), encoding="utf-8")
    (folder / "mypy.ini").write_text(
        "[mypy]\nstrict = True\npython_version = 3.10\n", encoding="utf-8"
    )
    (folder / "pyrightconfig.json").write_text(
        json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.10"}), encoding="utf-8"
    )
    return path


def expected(path: Path, checker: str) -> set[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found = {no: MARKER.search(line) for no, line in enumerate(lines, start=1)}
    return {
        no for no, match in found.items() if match and (checker == "pyright" or not match.group(1))
    }


def test_mypy_checks_hooks_against_typed_targets(snippet: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental",
         snippet.name],
        cwd=snippet.parent,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    flagged = {
        int(match.group(1))
        for match in re.finditer(rf"^{re.escape(snippet.name)}:(\d+): error:", proc.stdout, re.M)
    }
    assert flagged == expected(snippet, "mypy"), proc.stdout


def test_pyright_checks_hooks_against_typed_targets(snippet: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", snippet.name],
        cwd=snippet.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(proc.stdout)
    flagged = {
        diagnostic["range"]["start"]["line"] + 1
        for diagnostic in report["generalDiagnostics"]
        if diagnostic["severity"] == "error"
    }
    assert flagged == expected(snippet, "pyright"), proc.stdout
