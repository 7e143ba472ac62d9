"""Registration rules, composition order, class replacement and target forms."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import tests.hooktargets as hooktargets
from sglang.runtime import SRT
from sglang.runtime.hooks import (
    HookApplyError,
    HookRegistry,
    HookStatus,
    HookType,
    PluginSource,
    hook_target,
)
from tests.hooktargets import basic, consumer

MOD = "tests.hooktargets.basic"
SOURCE = PluginSource("obs", "obs-dist", "2.0", "sglang.srt.plugins")


@pytest.fixture
def registry() -> Iterator[HookRegistry]:
    reg = HookRegistry(SRT)
    yield reg
    reg.reset(restore=True)


# -- registration ------------------------------------------------------------------


def test_registering_does_not_import_the_target(registry: HookRegistry) -> None:
    sys.modules.pop("tests.hooktargets.lazy", None)
    hooktargets.IMPORTS.clear()

    def around(original: Callable[[int], int], x: int) -> int:
        return original(x) * 2

    registry.register("tests.hooktargets.lazy.compute", around, HookType.AROUND)
    registry.register("tests.hooktargets.lazy:compute", around, HookType.AROUND)
    assert "tests.hooktargets.lazy" not in sys.modules
    assert hooktargets.IMPORTS == []
    registry.apply_hooks()
    import tests.hooktargets.lazy as lazy

    assert hooktargets.IMPORTS == ["tests.hooktargets.lazy"]
    assert lazy.compute(1) == 8  # both registrations name the same function
    sys.modules.pop("tests.hooktargets.lazy", None)


def test_a_class_hook_with_a_non_replace_type_is_a_type_error(registry: HookRegistry) -> None:
    class NotAHook:
        pass

    for hook_type in (HookType.BEFORE, HookType.AFTER, HookType.AROUND):
        with pytest.raises(TypeError, match=r"only be registered with HookType\.REPLACE"):
            registry.register(f"{MOD}.add", NotAHook, hook_type)
    assert registry.hooks() == ()


@pytest.mark.parametrize(
    "target",
    ["", "add", "pkg..mod", "pkg.mod:", ":func", "pkg:mod:func", "pkg.mod.1abc", "pkg mod.f"],
)
def test_invalid_target_paths_are_rejected_at_registration(
    registry: HookRegistry, target: str
) -> None:
    with pytest.raises(ValueError, match="invalid hook target"):
        registry.register(target, lambda: None, HookType.REPLACE)


def test_registration_type_errors(registry: HookRegistry) -> None:
    with pytest.raises(TypeError, match="hook target must be"):
        registry.register(basic.add, lambda: None, HookType.REPLACE)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="must be a HookType"):
        registry.register(f"{MOD}.add", lambda: None, "around")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="must be callable"):
        registry.register(f"{MOD}.add", 42, HookType.REPLACE)  # type: ignore[call-overload]


def test_typed_targets_and_the_decorator(registry: HookRegistry) -> None:
    def double_result(result: int, x: int, y: int) -> int:
        return result * 2

    assert registry.register(hook_target(basic.add), double_result, HookType.AFTER) is (
        double_result
    )

    @registry.plugin_hook(hook_target(basic.add), type=HookType.BEFORE)
    def plus_one(x: int, y: int) -> tuple[tuple[object, ...], dict[str, object]] | None:
        return ((x + 1, y), {})

    @registry.plugin_hook(f"{MOD}.Base.double", type=HookType.REPLACE)
    def triple(x: int) -> int:
        return 3 * x

    assert plus_one.__name__ == "plus_one"  # returned unchanged
    registry.apply_hooks()
    assert basic.add(1, 1) == 6
    assert basic.Base.double(2) == 6
    assert [info.target for info in registry.hooks()] == [
        f"{MOD}.add",
        f"{MOD}.add",
        f"{MOD}.Base.double",
    ]


# -- composition -------------------------------------------------------------------


def test_composition_order(registry: HookRegistry) -> None:
    trace: list[str] = []

    def before(tag: str) -> Callable[..., Any]:
        def hook(x: int, y: int) -> tuple[tuple[int, int], dict[str, Any]]:
            trace.append(f"{tag}({x},{y})")
            return ((x * 10, y), {})

        return hook

    def around(tag: str) -> Callable[..., Any]:
        def hook(original: Callable[[int, int], int], x: int, y: int) -> int:
            trace.append(f"{tag}>")
            result = original(x, y)
            trace.append(f"<{tag}")
            return result + 1

        return hook

    def after(tag: str) -> Callable[..., Any]:
        def hook(result: int, x: int, y: int) -> int:
            trace.append(f"{tag}[{result}; {x},{y}]")
            return result * 2

        return hook

    def replace(x: int, y: int) -> int:
        trace.append("R")
        return x - y

    target = f"{MOD}.add"
    registry.register(target, after("F1"), HookType.AFTER)
    registry.register(target, around("A1"), HookType.AROUND)
    registry.register(target, before("B1"), HookType.BEFORE)
    registry.register(target, replace, HookType.REPLACE)
    registry.register(target, around("A2"), HookType.AROUND)
    registry.register(target, before("B2"), HookType.BEFORE)
    registry.register(target, after("F2"), HookType.AFTER)
    registry.apply_hooks()

    result = basic.add(1, 2)
    # BEFOREs chain in order, AROUNDs form an onion (first registered outermost),
    # REPLACE is innermost, AFTERs chain in order and see the final arguments.
    assert trace == [
        "B1(1,2)",
        "B2(10,2)",
        "A1>",
        "A2>",
        "R",
        "<A2",
        "<A1",
        "F1[100; 100,2]",
        "F2[200; 100,2]",
    ]
    assert result == 400


@pytest.mark.parametrize(
    "types",
    [
        ("BEFORE",),
        ("AFTER",),
        ("AROUND",),
        ("AROUND", "AROUND", "AROUND"),
        ("BEFORE", "AFTER"),
        ("BEFORE", "BEFORE"),
        ("AFTER", "AFTER"),
        ("AROUND", "BEFORE"),
        ("AROUND", "AFTER"),
        ("REPLACE", "AROUND"),
        ("BEFORE", "AROUND", "AFTER", "REPLACE"),
    ],
)
def test_every_chain_shape(registry: HookRegistry, types: tuple[str, ...]) -> None:
    counts = dict.fromkeys(HookType, 0)

    def make(kind: HookType) -> Callable[..., Any]:
        def before(x: int, y: int) -> None:
            counts[kind] += 1

        def after(result: int, x: int, y: int) -> None:
            counts[kind] += 1

        def around(original: Callable[[int, int], int], x: int, y: int) -> int:
            counts[kind] += 1
            return original(x, y)

        def replace(x: int, y: int) -> int:
            counts[kind] += 1
            return x + y

        hooks: dict[HookType, Callable[..., Any]] = {
            HookType.BEFORE: before,
            HookType.AFTER: after,
            HookType.AROUND: around,
            HookType.REPLACE: replace,
        }
        return hooks[kind]

    for name in types:
        registry.register(f"{MOD}.add", make(HookType[name]), HookType[name])
    registry.apply_hooks()
    assert basic.add(2, 3) == 5
    for kind in HookType:
        assert counts[kind] == types.count(kind.name)


def test_before_hook_with_a_bad_return_shape_names_hook_and_source(
    registry: HookRegistry,
) -> None:
    def sloppy(x: int, y: int) -> object:
        return [x, y]

    registry.register(f"{MOD}.add", sloppy, HookType.BEFORE, source=SOURCE)
    registry.apply_hooks()
    with pytest.raises(TypeError) as info:
        basic.add(1, 2)
    message = str(info.value)
    assert "BEFORE hook" in message
    assert "sloppy" in message
    assert "plugin 'obs' (distribution obs-dist 2.0)" in message
    assert "(args, kwargs)" in message


@pytest.mark.parametrize("bad", [(1, 2), ((1, 2),), ((1, 2), {}, None), ("ab", {})])
def test_before_result_must_be_a_tuple_and_a_dict(registry: HookRegistry, bad: object) -> None:
    registry.register(f"{MOD}.add", lambda x, y: bad, HookType.BEFORE)
    registry.register(f"{MOD}.add", lambda r, x, y: None, HookType.AFTER)
    registry.apply_hooks()
    with pytest.raises(TypeError, match="BEFORE hook must return None"):
        basic.add(1, 2)


def test_before_may_return_a_list_of_args_and_new_kwargs(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", lambda x, y: ([x], {"y": 100}), HookType.BEFORE)
    registry.apply_hooks()
    assert basic.add(1, 2) == 101


# -- class replacement -----------------------------------------------------------


def test_class_replace_keeps_isinstance_and_reaches_importers(registry: HookRegistry) -> None:
    original = basic.Widget

    @registry.plugin_hook(f"{MOD}.Widget", type=HookType.REPLACE)
    class Fancy(basic.Widget):
        def describe(self) -> str:
            return "fancy " + super().describe()

    registry.apply_hooks()
    assert basic.Widget is Fancy
    assert consumer.Widget is Fancy  # ``from ... import Widget`` was rebound
    made = basic.make_widget(2)
    assert type(made) is Fancy
    assert isinstance(made, original)
    assert issubclass(basic.Widget, original)
    assert made.describe() == "fancy widget 2"
    assert consumer.build(3).describe() == "fancy widget 3"

    registry.restore()
    assert basic.Widget is original
    assert consumer.Widget is original


def test_class_target_rejects_non_replace_hooks_at_apply(registry: HookRegistry) -> None:
    def around(original: Callable[..., object], *args: object) -> object:
        return original(*args)

    registry.register(f"{MOD}.Widget", around, HookType.AROUND, source=SOURCE)
    registry.register(f"{MOD}.Widget", around, HookType.REPLACE, source=SOURCE)
    registry.apply_hooks()
    first, second = registry.hooks()
    assert first.status is HookStatus.FAILED
    assert first.reason is not None
    assert "accepts only REPLACE hooks" in first.reason
    assert second.status is HookStatus.FAILED
    assert second.reason is not None
    assert "REPLACE it with a class" in second.reason
    assert basic.Widget.__name__ == "Widget"


def test_direct_registration_on_a_class_target_with_around_raises(
    registry: HookRegistry,
) -> None:
    registry.register(f"{MOD}.Widget", lambda original, *a: original(*a), HookType.AROUND)
    with pytest.raises(HookApplyError, match="accepts only REPLACE hooks"):
        registry.apply_hooks()
