"""Every hook type on every target kind, against real modules in ``tests/hooktargets``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from sglang.runtime import SRT
from sglang.runtime.hooks import HookRegistry, HookStatus, HookType
from tests.hooktargets import basic

MOD = "tests.hooktargets.basic"


@pytest.fixture
def registry() -> Iterator[HookRegistry]:
    reg = HookRegistry(SRT)
    yield reg
    reg.reset(restore=True)


@dataclass(frozen=True)
class Kind:
    """One target kind: its path, how to call it with ``x``, and where it lives."""

    id: str
    path: str
    call: Callable[[int], Any]
    owner: Callable[[], object]
    name: str
    is_async: bool = False
    base: Callable[[], object] | None = None  # for inherited targets: the class defining it

    def invoke(self, x: int) -> int:
        result = self.call(x)
        if self.is_async:
            assert inspect.isawaitable(result)
            return int(asyncio.run(_await(result)))
        return int(result)


async def _await(value: Awaitable[Any]) -> Any:
    return await value


KINDS = [
    Kind("function", f"{MOD}.add", lambda x: basic.add(1, x), lambda: basic, "add"),
    Kind("function-colon", f"{MOD}:add", lambda x: basic.add(1, x), lambda: basic, "add"),
    Kind("method", f"{MOD}.Base.method", lambda x: basic.Base(2).method(x), lambda: basic.Base,
         "method"),
    Kind("inherited-method", f"{MOD}.Child.method", lambda x: basic.Child(2).method(x),
         lambda: basic.Child, "method", base=lambda: basic.Base),
    Kind("classmethod", f"{MOD}.Base.scaled", lambda x: basic.Base.scaled(x), lambda: basic.Base,
         "scaled"),
    Kind("inherited-classmethod", f"{MOD}:Child.scaled", lambda x: basic.Child.scaled(x),
         lambda: basic.Child, "scaled", base=lambda: basic.Base),
    Kind("classmethod-on-instance", f"{MOD}.Child.scaled", lambda x: basic.Child().scaled(x),
         lambda: basic.Child, "scaled", base=lambda: basic.Base),
    Kind("staticmethod", f"{MOD}.Base.double", lambda x: basic.Base.double(x), lambda: basic.Base,
         "double"),
    Kind("inherited-staticmethod", f"{MOD}.Child.double", lambda x: basic.Child().double(x),
         lambda: basic.Child, "double", base=lambda: basic.Base),
    Kind("nested-class-method", f"{MOD}.Outer.Inner.ping", lambda x: basic.Outer.Inner().ping(x),
         lambda: basic.Outer.Inner, "ping"),
    Kind("async-function", f"{MOD}.fetch", lambda x: basic.fetch(x), lambda: basic, "fetch",
         is_async=True),
    Kind("async-method", f"{MOD}.Child.amethod", lambda x: basic.Child(3).amethod(x),
         lambda: basic.Child, "amethod", is_async=True, base=lambda: basic.Base),
    Kind("async-classmethod", f"{MOD}.Child.ascaled", lambda x: basic.Child.ascaled(x),
         lambda: basic.Child, "ascaled", is_async=True, base=lambda: basic.Base),
]  # fmt: skip


def bump_last(*args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """BEFORE: add 1 to the last positional argument."""
    return ((*args[:-1], args[-1] + 1), kwargs)


def times_1000(result: int, *args: Any, **kwargs: Any) -> int:
    """AFTER: replace the result."""
    return result * 1000


def around_sync(original: Callable[..., int], *args: Any, **kwargs: Any) -> int:
    return original(*args, **kwargs) * 1000


async def around_async(original: Callable[..., Awaitable[int]], *args: Any, **kwargs: Any) -> int:
    return await original(*args, **kwargs) * 1000


def replace_sync(*args: Any, **kwargs: Any) -> int:
    return -int(args[-1])


async def replace_async(*args: Any, **kwargs: Any) -> int:
    await asyncio.sleep(0)
    return -int(args[-1])


def _raw(owner: object, name: str) -> object:
    namespace: dict[str, object] = vars(owner)
    return namespace.get(name, "<absent>")


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.id)
@pytest.mark.parametrize("hook_type", list(HookType), ids=lambda t: t.name)
def test_every_hook_type_on_every_target_kind(
    registry: HookRegistry, kind: Kind, hook_type: HookType
) -> None:
    before_raw = _raw(kind.owner(), kind.name)
    base_raw = _raw(kind.base(), kind.name) if kind.base else None
    plain = kind.invoke(5)
    expected = {
        HookType.BEFORE: kind.invoke(6),
        HookType.AFTER: plain * 1000,
        HookType.AROUND: plain * 1000,
        HookType.REPLACE: -5,
    }[hook_type]
    hooks: dict[HookType, Callable[..., Any]] = {
        HookType.BEFORE: bump_last,
        HookType.AFTER: times_1000,
        HookType.AROUND: around_async if kind.is_async else around_sync,
        HookType.REPLACE: replace_async if kind.is_async else replace_sync,
    }
    hook = hooks[hook_type]

    registry.register(kind.path, hook, hook_type)
    assert kind.invoke(5) == plain  # registering patches nothing
    registry.apply_hooks()

    assert kind.invoke(5) == expected
    [info] = registry.hooks()
    assert info.status is HookStatus.APPLIED
    assert info.location is not None
    assert info.location.endswith(kind.name)
    if kind.is_async:
        assert inspect.iscoroutinefunction(getattr(kind.owner(), kind.name))
    if kind.base is not None:  # patched on the named class, the base is untouched
        assert _raw(kind.base(), kind.name) is base_raw

    registry.restore()
    assert _raw(kind.owner(), kind.name) is before_raw
    assert kind.invoke(5) == plain


@pytest.mark.parametrize("kind", [k for k in KINDS if k.is_async], ids=lambda k: k.id)
def test_async_targets_accept_sync_hooks_that_see_awaited_values(
    registry: HookRegistry, kind: Kind
) -> None:
    plain = kind.invoke(5)
    seen: list[object] = []

    def after(result: object, *args: Any) -> None:
        seen.append(result)

    registry.register(kind.path, bump_last, HookType.BEFORE)
    registry.register(kind.path, after, HookType.AFTER)
    registry.apply_hooks()
    assert kind.invoke(4) == plain
    assert seen == [plain]  # the awaited result, not a coroutine


def test_sync_replace_of_async_target_is_awaitable(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.fetch", replace_sync, HookType.REPLACE)
    registry.apply_hooks()
    assert inspect.iscoroutinefunction(basic.fetch)
    assert asyncio.run(_await(basic.fetch(7))) == -7


@pytest.mark.parametrize("hook_type", list(HookType), ids=lambda t: t.name)
def test_classmethod_hooks_receive_the_calling_class_first(
    registry: HookRegistry, hook_type: HookType
) -> None:
    seen: list[object] = []

    def before(cls: type[basic.Base], x: int) -> None:
        seen.append(cls)

    def after(result: int, cls: type[basic.Base], x: int) -> None:
        seen.append(cls)

    def around(
        original: Callable[[type[basic.Base], int], int], cls: type[basic.Base], x: int
    ) -> int:
        seen.append(cls)
        return original(cls, x)

    def replace(cls: type[basic.Base], x: int) -> int:
        seen.append(cls)
        return cls.factor * x

    hooks: dict[HookType, Callable[..., object]] = {
        HookType.BEFORE: before,
        HookType.AFTER: after,
        HookType.AROUND: around,
        HookType.REPLACE: replace,
    }
    registry.register(f"{MOD}.Base.scaled", hooks[hook_type], hook_type)
    registry.apply_hooks()
    # the class the call was made on, as ``self`` is the instance for a method
    assert basic.Base.scaled(2) == 6
    assert basic.Child.scaled(2) == 10
    assert basic.Child().scaled(2) == 10
    assert seen == [basic.Base, basic.Child, basic.Child]
    assert isinstance(inspect.getattr_static(basic.Base, "scaled"), classmethod)
    assert isinstance(inspect.getattr_static(basic.Base, "double"), staticmethod)


def test_a_classmethod_replace_builds_the_subclass_it_was_called_on(
    registry: HookRegistry,
) -> None:
    class GrandChild(basic.Child):
        pass

    def create(cls: type[basic.Base], value: int) -> basic.Base:
        return cls(value * 10)

    registry.register(f"{MOD}.Base.create", create, HookType.REPLACE)
    registry.apply_hooks()
    built = [basic.Base.create(1), basic.Child.create(2), GrandChild.create(3)]
    assert [type(obj) for obj in built] == [basic.Base, basic.Child, GrandChild]
    assert [obj.value for obj in built] == [10, 20, 30]


def test_hooks_on_an_inherited_classmethod_receive_the_subclass(registry: HookRegistry) -> None:
    seen: list[object] = []

    async def around(original: Callable[..., Awaitable[int]], cls: type, x: int) -> int:
        seen.append(cls)
        return await original(cls, x) + 1

    registry.register(f"{MOD}.Child.ascaled", around, HookType.AROUND)
    registry.apply_hooks()
    assert asyncio.run(_await(basic.Child.ascaled(2))) == 11
    assert asyncio.run(_await(basic.Base.ascaled(2))) == 6  # the base is untouched
    assert seen == [basic.Child]


def test_method_hooks_receive_self(registry: HookRegistry) -> None:
    selves: list[object] = []

    def before(self: basic.Base, x: int) -> None:
        selves.append(self)

    registry.register(f"{MOD}.Base.method", before, HookType.BEFORE)
    registry.apply_hooks()
    obj = basic.Child(4)
    assert obj.method(1) == 5
    assert selves == [obj]


def test_wrapper_keeps_the_original_name_and_signature(registry: HookRegistry) -> None:
    original = basic.add
    registry.register(f"{MOD}.add", around_sync, HookType.AROUND)
    registry.apply_hooks()
    assert basic.add is not original
    assert basic.add.__name__ == "add"
    assert basic.add.__doc__ == original.__doc__
    assert basic.add.__wrapped__ is original  # type: ignore[attr-defined]
    assert str(inspect.signature(basic.add)) == str(inspect.signature(original))


def test_replace_only_installs_the_replacement_itself(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", replace_sync, HookType.REPLACE)
    registry.apply_hooks()
    assert basic.add is replace_sync
