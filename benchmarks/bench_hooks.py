"""Hook engine cost: per call, and for ``apply_hooks()`` with many modules loaded.

Per-call cost of a function hooked with one BEFORE, one AFTER, one AROUND
hook, and a stack of five (two BEFORE, two AROUND, one AFTER), all in one
run against:

* the plain, unhooked function;
* a hand-written closure wrapper doing the same thing (the baseline a
  careful engineer would write by hand);
* pluggy (installed with the dev extra) calling one implementation.

Targets: an unhooked target is the identical object (zero overhead, checked
with ``is``); one AROUND hook costs <= 1.3x the hand-written wrapper.

``apply_hooks()`` for 50 module-level targets while 2,000 synthetic modules
are loaded (written to a temporary folder and imported; a tenth of them
import one of the targets by name, so alias propagation has work to do),
against a naive alias scan that walks every module once per target.
Target: <= 50 ms. Run::

    python benchmarks/bench_hooks.py            # full: 7 repetitions, 2,000 modules
    python benchmarks/bench_hooks.py --quick    # smoke run: 3 repetitions, 200 modules
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from _common import machine, median_ms, print_table

from sglang.runtime import SRT
from sglang.runtime.hooks import HookRegistry, HookType

AROUND_TARGET = 1.3
APPLY_TARGET_MS = 50.0
N_TARGETS = 50

TARGET_MODULE = """
def plain(x, y):
    return x + y

def before(x, y):
    return x + y

def after(x, y):
    return x + y

def around(x, y):
    return x + y

def stack(x, y):
    return x + y

def untouched(x, y):
    return x + y
"""

# -- the hooks ----------------------------------------------------------------------


def before_hook(x: int, y: int) -> None:
    return None


def after_hook(result: int, x: int, y: int) -> None:
    return None


def around_hook(original: Callable[[int, int], int], x: int, y: int) -> int:
    return original(x, y)


# -- hand-written wrappers doing the same -----------------------------------------------


def hand_before(fn: Callable[..., Any], hook: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        changed = hook(*args, **kwargs)
        if changed is not None:
            args, kwargs = changed
        return fn(*args, **kwargs)

    return wrapper


def hand_after(fn: Callable[..., Any], hook: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        changed = hook(result, *args, **kwargs)
        return result if changed is None else changed

    return wrapper


def hand_around(fn: Callable[..., Any], hook: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return hook(fn, *args, **kwargs)

    return wrapper


def hand_stack(fn: Callable[..., Any]) -> Callable[..., Any]:
    inner = hand_around(hand_around(fn, around_hook), around_hook)
    return hand_after(hand_before(hand_before(inner, before_hook), before_hook), after_hook)


def pluggy_call() -> Callable[..., object]:
    import pluggy

    spec = pluggy.HookspecMarker("bench")
    impl = pluggy.HookimplMarker("bench")

    class Spec:
        @spec
        def add(self, x: int, y: int) -> int:  # type: ignore[empty-body]
            """The hook specification."""

    class Impl:
        @impl
        def add(self, x: int, y: int) -> int:
            return x + y

    manager = pluggy.PluginManager("bench")
    manager.add_hookspecs(Spec)
    manager.register(Impl())
    hook = manager.hook.add
    assert hook(x=1, y=2) == [3]
    return hook


def per_call_ns(fn: Callable[..., object], stmt: str, *, loops: int, repeat: int) -> float:
    timer = timeit.Timer(stmt, globals={"f": fn})
    return min(timer.repeat(repeat=repeat, number=loops)) / loops * 1e9


def bench_calls(root: Path, *, loops: int, repeat: int) -> bool:
    (root / "bench_hook_targets.py").write_text(TARGET_MODULE, encoding="utf-8")
    module = importlib.import_module("bench_hook_targets")
    untouched = module.untouched
    originals = {name: getattr(module, name) for name in ("before", "after", "around", "stack")}
    registry = HookRegistry(SRT)
    mod = "bench_hook_targets"
    registry.register(f"{mod}.before", before_hook, HookType.BEFORE)
    registry.register(f"{mod}.after", after_hook, HookType.AFTER)
    registry.register(f"{mod}.around", around_hook, HookType.AROUND)
    for hook_type, hook in (
        (HookType.BEFORE, before_hook),
        (HookType.BEFORE, before_hook),
        (HookType.AROUND, around_hook),
        (HookType.AROUND, around_hook),
        (HookType.AFTER, after_hook),
    ):
        registry.register(f"{mod}.stack", hook, hook_type)
    registry.apply_hooks()
    identical = module.untouched is untouched
    print(f"unhooked target is the identical object: {identical}")

    hand = {
        "before": hand_before(originals["before"], before_hook),
        "after": hand_after(originals["after"], after_hook),
        "around": hand_around(originals["around"], around_hook),
        "stack": hand_stack(originals["stack"]),
    }
    call = "f(1, 2)"
    plain = per_call_ns(module.plain, call, loops=loops, repeat=repeat)
    rows = [["plain function", f"{plain:.0f}", "1.00x", "", ""]]
    around_ratio = around_ns = 0.0
    for name, label in (
        ("before", "1 BEFORE"),
        ("after", "1 AFTER"),
        ("around", "1 AROUND"),
        ("stack", "stack of 5"),
    ):
        ours = per_call_ns(getattr(module, name), call, loops=loops, repeat=repeat)
        theirs = per_call_ns(hand[name], call, loops=loops, repeat=repeat)
        ratio = ours / theirs
        if name == "around":
            around_ratio, around_ns = ratio, ours
        rows.append(
            [label, f"{ours:.0f}", f"{ours / plain:.2f}x", f"{theirs:.0f}", f"{ratio:.2f}x"]
        )
    pluggy_ns = per_call_ns(pluggy_call(), "f(x=1, y=2)", loops=loops, repeat=repeat)
    rows.append(["pluggy, 1 implementation", f"{pluggy_ns:.0f}", f"{pluggy_ns / plain:.2f}x", "",
                 ""])  # fmt: skip
    print_table(["case", "ours ns/call", "x plain", "hand-written ns/call", "x hand-written"], rows)
    registry.reset()
    ok = identical and around_ratio <= AROUND_TARGET
    print(
        f"target: unhooked is identical and 1 AROUND <= {AROUND_TARGET}x hand-written: "
        f"{'holds' if ok else 'MISSED'} ({around_ratio:.2f}x); "
        f"1 AROUND vs pluggy: {pluggy_ns / around_ns:.1f}x faster"
    )
    return ok


# -- apply_hooks with many modules --------------------------------------------------------


def write_modules(root: Path, count: int) -> list[str]:
    """Write the target module and *count* synthetic modules; return the names."""
    package = root / "bench_apply_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    functions = "\n".join(
        f"def target_{i}(x, y):\n    return x + y + {i}\n" for i in range(N_TARGETS)
    )
    (package / "targets.py").write_text(functions, encoding="utf-8")
    names = []
    for i in range(count):
        body = [f"CONSTANT_{j} = {j}" for j in range(10)]
        body += [f"def helper_{j}(x):\n    return x + {j}\n" for j in range(8)]
        body.append(f"class Thing{i}:\n    def run(self):\n        return {i}\n")
        if i % 10 == 0:
            body.insert(0, f"from bench_apply_pkg.targets import target_{i % N_TARGETS}")
        (package / f"mod_{i:04d}.py").write_text("\n".join(body) + "\n", encoding="utf-8")
        names.append(f"bench_apply_pkg.mod_{i:04d}")
    return names


def naive_alias_scan(originals: list[object]) -> int:
    """The baseline: one walk over every module's namespace per target."""
    found = 0
    for original in originals:
        loaded: list[object] = list(sys.modules.values())
        for module in loaded:
            if not isinstance(module, ModuleType):
                continue
            for value in list(vars(module).values()):
                if value is original:
                    found += 1
    return found


def bench_apply(root: Path, *, modules: int, repeat: int) -> bool:
    names = write_modules(root, modules)
    for name in names:
        importlib.import_module(name)
    targets = importlib.import_module("bench_apply_pkg.targets")
    print(f"\nmodules loaded: {len(sys.modules)} ({modules} synthetic)")
    registry = HookRegistry(SRT)
    for i in range(N_TARGETS):
        registry.register(f"bench_apply_pkg.targets.target_{i}", around_hook, HookType.AROUND)

    def apply() -> None:
        registry.apply_hooks()

    ours = median_ms(apply, repeat=repeat, setup=registry.restore)
    aliases = sum(
        1
        for name in names
        for value in vars(sys.modules[name]).values()
        if getattr(value, "__wrapped__", None) is not None
    )
    registry.restore()
    originals: list[object] = [getattr(targets, f"target_{i}") for i in range(N_TARGETS)]
    naive = median_ms(lambda: naive_alias_scan(originals), repeat=repeat)
    ok = ours <= APPLY_TARGET_MS
    print_table(
        ["case", "ms", "ratio"],
        [
            [f"apply_hooks(), {N_TARGETS} targets", f"{ours:.2f}", f"{ours / naive:.3f}x"],
            ["naive alias scan per target (baseline)", f"{naive:.2f}", "1.000x"],
        ],
    )
    print(f"aliases rebound per apply: {aliases}")
    print(
        f"target: apply_hooks() <= {APPLY_TARGET_MS:.0f} ms: "
        f"{'holds' if ok else 'MISSED'} ({ours:.2f} ms)"
    )
    registry.reset()
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Hook engine cost per call and per apply.")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    args = parser.parse_args(argv)
    loops, repeat, modules = (20_000, 3, 200) if args.quick else (300_000, 7, 2000)
    print(machine())
    with tempfile.TemporaryDirectory(prefix="bench_hooks_") as tmp:
        root = Path(tmp)
        sys.path.insert(0, str(root))
        try:
            calls_ok = bench_calls(root, loops=loops, repeat=repeat)
            apply_ok = bench_apply(root, modules=modules, repeat=repeat)
        finally:
            sys.path.remove(str(root))
    print(f"\nper-call targets {'hold' if calls_ok else 'MISSED'}; "
          f"apply target {'holds' if apply_ok else 'MISSED'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
