"""``sglang.sdk.hooks``: HookType and hook_target()."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import pytest

from sglang.sdk.hooks import HookTarget, HookType, hook_target


def scale(x: float, factor: int) -> float:
    return x * factor


async def fetch(key: str) -> str:
    return key


class Worker:
    def forward(self, batch: list[int]) -> int:
        return sum(batch)

    @classmethod
    def create(cls) -> Worker:
        return cls()

    @staticmethod
    def version() -> str:
        return "1"

    class Inner:
        def step(self) -> None:
            pass

        class Deeper:
            def run(self, n: int) -> int:
                return n


def test_hook_types() -> None:
    assert [kind.name for kind in HookType] == ["BEFORE", "AFTER", "AROUND", "REPLACE"]
    assert HookType("around") is HookType.AROUND


@pytest.mark.parametrize(
    ("target", "path"),
    [
        (scale, f"{__name__}.scale"),
        (fetch, f"{__name__}.fetch"),
        (Worker, f"{__name__}.Worker"),
        (Worker.forward, f"{__name__}.Worker.forward"),
        (Worker.version, f"{__name__}.Worker.version"),
        (Worker.Inner.step, f"{__name__}.Worker.Inner.step"),
        (Worker.Inner.Deeper.run, f"{__name__}.Worker.Inner.Deeper.run"),
        (dataclasses.replace, "dataclasses.replace"),
    ],
    ids=[
        "function",
        "async",
        "class",
        "method",
        "staticmethod",
        "nested",
        "nested2",
        "stdlib",
    ],
)
def test_hook_target_path(target: Callable[..., object], path: str) -> None:
    typed = hook_target(target)
    assert isinstance(typed, HookTarget)
    assert typed.path == path


class Special(Worker):
    pass


def test_a_classmethod_target_names_the_class_it_is_hooked_on() -> None:
    assert hook_target(Worker.create, cls=Worker).path == f"{__name__}.Worker.create"
    # inherited: the subclass is hooked (its own attribute), not the base
    assert hook_target(Special.create, cls=Special).path == f"{__name__}.Special.create"


def test_a_classmethod_without_its_class_is_rejected() -> None:
    # its hooks receive cls first, which the bound method's type does not show
    with pytest.raises(TypeError, match=r"classmethod: its hooks receive cls first.*cls=Worker"):
        hook_target(Worker.create)


@pytest.mark.parametrize(
    "target", [Worker.forward, scale, Special.create], ids=["method", "function", "other-class"]
)
def test_cls_is_only_for_a_classmethod_bound_to_it(target: Callable[..., object]) -> None:
    with pytest.raises(TypeError, match=r"describes a classmethod of Worker: pass it as Worker\."):
        hook_target(target, cls=Worker)


def test_hook_target_is_frozen_and_imports_nothing() -> None:
    typed = hook_target(scale)
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed.path = "elsewhere"  # type: ignore[misc]
    assert typed == HookTarget(f"{__name__}.scale")


def test_lambda_is_rejected() -> None:
    with pytest.raises(TypeError, match="no importable dotted path"):
        hook_target(lambda x: x)


def test_local_function_is_rejected() -> None:
    def local(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="module-level"):
        hook_target(local)


def test_method_of_local_class_is_rejected() -> None:
    class Local:
        def method(self) -> None:
            pass

    with pytest.raises(TypeError, match="no importable dotted path"):
        hook_target(Local.method)


def test_object_without_qualname_is_rejected() -> None:
    partial = functools.partial(scale, factor=2)
    with pytest.raises(TypeError, match="no importable dotted path"):
        hook_target(partial)
