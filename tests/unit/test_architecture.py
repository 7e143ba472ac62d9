"""The shape of ``src/``, checked with the standard library's :mod:`ast`.

* no import cycle between our modules, counting every import statement:
  module level, ``if TYPE_CHECKING:`` blocks and imports inside functions;
* :mod:`sglang.sdk` imports nothing of ours outside ``sglang.sdk``;
* each package imports only the packages :data:`MAY_IMPORT` allows it (the
  table ``docs/guides/architecture.rst`` shows);
* no module is longer than :data:`MAX_LINES` lines;
* no block of :data:`MIN_BLOCK` or more code lines is repeated.

Each rule has a test that feeds it a small bad tree, so the rule is known to
be able to fail.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

MAX_LINES = 420
"""The longest a module may be; split longer ones along their seams."""

LINE_LIMIT_EXEMPT: Mapping[str, str] = {}
"""Modules allowed over :data:`MAX_LINES` for now, with the reason."""

MIN_BLOCK = 6
"""The shortest run of repeated code lines that counts as duplication."""

CORE = "sglang.runtime"
"""The engine's foundation: the modules directly in ``sglang.runtime``."""

SUBPACKAGES = (
    "selection",
    "plugins",
    "hooks",
    "builtin",
    "bootstrap",
    "op_dispatch",
    "http",
    "checks",
)
DOCUMENTED = ("sglang.srt", "sglang.multimodal_gen", "sglang.cli")

MAY_IMPORT: Mapping[str, frozenset[str]] = {
    # the top-level face lends out sglang.Engine, loaded on first access
    "sglang": frozenset({"sglang.srt"}),
    "sglang.sdk": frozenset(),
    # the checkpoint writers build the runtime's own modules to get their parameters
    "sglang.testing": frozenset({"sglang", "sglang.sdk", "sglang.multimodal_gen"}),
    CORE: frozenset({"sglang", "sglang.sdk"}),
    "sglang.runtime.builtin": frozenset({"sglang", "sglang.sdk", CORE}),
    "sglang.runtime.hooks": frozenset({"sglang", "sglang.sdk", CORE}),
    "sglang.runtime.bootstrap": frozenset({"sglang", "sglang.sdk", CORE}),
    # the HTTP pieces both runtimes' servers share; no runtime specifics
    "sglang.runtime.http": frozenset({"sglang", CORE}),
    "sglang.runtime.op_dispatch": frozenset(
        {"sglang", "sglang.sdk", CORE, "sglang.runtime.selection"}
    ),
    "sglang.runtime.selection": frozenset({"sglang", "sglang.sdk", CORE, "sglang.runtime.builtin"}),
    "sglang.runtime.plugins": frozenset(
        {"sglang", "sglang.sdk", CORE, "sglang.runtime.hooks", "sglang.runtime.selection"}
    ),
    # ``sglang plugins check``: judges plugins with the pieces selection and loading use
    "sglang.runtime.checks": frozenset(
        {
            "sglang",
            "sglang.sdk",
            CORE,
            "sglang.runtime.hooks",
            "sglang.runtime.plugins",
            "sglang.runtime.selection",
        }
    ),
    **{
        path: frozenset(
            {"sglang", "sglang.sdk", CORE, *(f"{CORE}.{sub}" for sub in SUBPACKAGES), *DOCUMENTED}
        )
        for path in DOCUMENTED
    },
    # a pure HTTP client of a running server
    "sglang.bench_serving": frozenset(),
    # the conformance suite drives everything; nothing imports it
    "sglang.conformance": frozenset(
        {
            "sglang",
            "sglang.sdk",
            "sglang.testing",
            CORE,
            *(f"{CORE}.{sub}" for sub in SUBPACKAGES),
            *DOCUMENTED,
        }
    ),
}
"""Package -> the packages it may import (besides itself); arrows point down."""


# -- reading the tree ---------------------------------------------------------------------


def module_name(path: Path, root: Path) -> str:
    """``root/a/b/c.py`` is ``a.b.c``; ``root/a/b/__init__.py`` is ``a.b``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_under(root: Path) -> dict[str, Path]:
    """Every module under *root*, by dotted name."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    keep = len(base) - node.level + (1 if is_package else 0)
    prefix = base[:keep]
    return ".".join([*prefix, node.module] if node.module else prefix)


def imports_of(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of *known* that *module* imports, in any statement anywhere in it.

    ``import a.b`` imports ``a.b``; ``from a import b`` imports ``a.b`` when
    that is a module, else ``a``. Implicit imports of parent packages are
    not counted: every module would otherwise import its package's face.
    """
    names = set(known)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in names:
                    found.add(child)
                elif base in names:
                    found.add(base)
    found.discard(module)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports."""
    modules = modules_under(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle of *graph* as ``[a, b, ..., a]``, or ``None``."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        on_path = {start}
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = todo.pop()
            if nxt in on_path:
                path = [name for name, _ in stack]
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(graph.get(nxt, ()))))
                on_path.add(nxt)
    return None


def sdk_violations(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """For each ``sglang.sdk`` module, what it imports of ours outside ``sglang.sdk``."""
    bad = {}
    for module, targets in graph.items():
        if module == "sglang.sdk" or module.startswith("sglang.sdk."):
            outside = {t for t in targets if t != "sglang.sdk" and not t.startswith("sglang.sdk.")}
            if outside:
                bad[module] = outside
    return bad


def package_of(module: str) -> str:
    """The :data:`MAY_IMPORT` package *module* belongs to (``sglang._version`` is ``sglang``)."""
    for package in sorted(MAY_IMPORT, key=len, reverse=True):
        if module == package or module.startswith(package + "."):
            return package
    return module


def layer_violations(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """For each module, what it imports that its package may not import."""
    bad = {}
    for module, targets in graph.items():
        own = package_of(module)
        allowed = MAY_IMPORT.get(own, frozenset()) | {own}
        outside = {t for t in targets if package_of(t) not in allowed}
        if outside:
            bad[module] = outside
    return bad


def long_modules(root: Path, limit: int) -> dict[str, int]:
    """Modules under *root* (as relative paths) with more than *limit* lines."""
    counts = {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
    }
    return {path: count for path, count in counts.items() if count > limit}


# -- duplicated blocks --------------------------------------------------------------------


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(base, ast.Name) and base.id == "Protocol")
        or (isinstance(base, ast.Attribute) and base.attr == "Protocol")
        for base in node.bases
    )


def _trivia_lines(source: str) -> set[int]:
    """Lines that are never duplication: docstrings, comments, imports, ``__all__``,
    and the bodies of ``typing.Protocol`` classes, whose member signatures mirror
    the classes that implement them by design.
    """
    lines: set[int] = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        if (
            (isinstance(node, ast.ClassDef) and _is_protocol(node))
            or (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
            or isinstance(node, ast.Import | ast.ImportFrom)
        ):
            lines.update(range(node.lineno, end + 1))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                lines.update(range(node.lineno, end + 1))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
            lines.add(token.start[0])
    return lines


def code_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, whitespace-normalised text)`` of the lines that are code."""
    source = path.read_text(encoding="utf-8")
    trivia = _trivia_lines(source)
    result = []
    for number, line in enumerate(source.splitlines(), start=1):
        text = " ".join(line.split())
        if text and number not in trivia:
            result.append((number, text))
    return result


def repeated_blocks(paths: Iterable[Path], size: int) -> list[list[tuple[str, int]]]:
    """Places where the same *size* consecutive code lines occur more than once.

    Each item lists ``(path, first line)`` of every occurrence of one block;
    overlapping windows of one longer repeat are reported once.
    """
    seen: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for path in paths:
        lines = code_lines(path)
        for start in range(len(lines) - size + 1):
            window = tuple(text for _, text in lines[start : start + size])
            seen.setdefault(window, []).append((path.as_posix(), lines[start][0]))
    repeats = [places for places in seen.values() if len(places) > 1]
    reported: list[list[tuple[str, int]]] = []
    covered: set[tuple[str, int]] = set()
    for places in sorted(repeats):
        if all(place in covered for place in places):
            continue
        reported.append(places)
        for name, line in places:
            covered.update((name, line + offset) for offset in range(1, 30))
    return reported


# -- the checks on src/ -------------------------------------------------------------------


def test_src_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(SRC))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_sdk_imports_nothing_of_ours_outside_the_sdk() -> None:
    assert sdk_violations(import_graph(SRC)) == {}


def test_packages_import_only_what_they_may() -> None:
    assert layer_violations(import_graph(SRC)) == {}


def test_no_module_is_too_long() -> None:
    too_long = long_modules(SRC, MAX_LINES)
    unexpected = {path: n for path, n in too_long.items() if path not in LINE_LIMIT_EXEMPT}
    assert unexpected == {}, f"split these modules along their seams (limit {MAX_LINES})"
    stale = sorted(set(LINE_LIMIT_EXEMPT) - set(too_long))
    assert stale == [], f"these modules fit now: remove them from LINE_LIMIT_EXEMPT: {stale}"


def test_no_block_of_code_is_repeated() -> None:
    paths = sorted(SRC.rglob("*.py"))
    repeats = repeated_blocks(paths, MIN_BLOCK)
    shown = [[(str(Path(p).relative_to(SRC)), line) for p, line in places] for places in repeats]
    assert shown == [], f"blocks of {MIN_BLOCK}+ lines repeated: {shown}"


# -- each rule can fail -------------------------------------------------------------------


def write(root: Path, files: Mapping[str, str]) -> Path:
    for relpath, text in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def test_a_cycle_through_a_type_checking_or_lazy_import_is_found(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg.b import B\n",
            "pkg/b.py": "def f():\n    from . import c\n",
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from pkg import a\n",
        },
    )
    graph = import_graph(root)
    assert graph["pkg.d"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_importing_a_name_from_a_face_counts_as_importing_the_face(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.inner import X\n",
            "pkg/inner.py": "from pkg import helper\nX = 1\n",
            "pkg/other.py": "from pkg import X\n",
        },
    )
    graph = import_graph(root)
    assert graph["pkg.other"] == {"pkg"}
    assert find_cycle(graph) == ["pkg", "pkg.inner", "pkg"]


def test_an_sdk_module_importing_the_engine_is_reported(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "sglang/__init__.py": "",
            "sglang/sdk/__init__.py": "from sglang.sdk import srt\n",
            "sglang/sdk/srt.py": "def f():\n    from sglang.runtime import spec\n",
            "sglang/runtime/__init__.py": "",
            "sglang/runtime/spec.py": "import sglang.sdk.srt\n",
        },
    )
    assert sdk_violations(import_graph(root)) == {"sglang.sdk.srt": {"sglang.runtime.spec"}}


def test_an_upward_import_is_reported() -> None:
    graph = {
        "sglang.runtime.hooks.chain": {"sglang.runtime.spec", "sglang.runtime.selection.errors"},
        "sglang.runtime.selection.engine": {"sglang.runtime.builtin.families"},
        "sglang.srt.plugins": {"sglang.runtime.plugins"},
    }
    assert layer_violations(graph) == {
        "sglang.runtime.hooks.chain": {"sglang.runtime.selection.errors"}
    }


def test_a_long_module_is_reported(tmp_path: Path) -> None:
    root = write(tmp_path, {"ok.py": "x = 1\n" * 5, "long.py": "x = 1\n" * 6})
    assert long_modules(root, 5) == {"long.py": 6}


def test_a_repeated_block_is_reported_once_and_trivia_is_not(tmp_path: Path) -> None:
    block = "".join(f"    total = total + {i} * factor\n" for i in range(7))
    trivia = '"""Doc."""\n\n' + "import os\n" * 8 + "__all__ = [\n" + '    "x",\n' * 8 + "]\n"
    root = write(
        tmp_path,
        {
            "a.py": f"def f(total, factor):\n{block}    return total\n",
            "b.py": f"def g(total,  factor):\n  # a comment\n{block.replace('    ', '  ')}",
            "c.py": trivia,
            "d.py": trivia,
        },
    )
    paths = sorted(root.glob("*.py"))
    repeats = repeated_blocks(paths, 6)
    assert [[Path(p).name for p, _ in places] for places in repeats] == [["a.py", "b.py"]]
    assert repeated_blocks(paths, 9) == []
