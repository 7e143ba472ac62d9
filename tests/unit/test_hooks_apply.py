"""Application: late registration, restore, aliases, conflicts, failure policy, reports."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sglang.runtime import SRT
from sglang.runtime.hooks import (
    HookApplyError,
    HookRegistry,
    HookStatus,
    HookType,
    PluginSource,
    plugin_source,
)
from tests.hooktargets import basic, consumer, plugin_like

MOD = "tests.hooktargets.basic"
GROUP = "sglang.srt.plugins"
OBS = PluginSource("obs", "obs-dist", "2.0", GROUP)
VENDOR = PluginSource("vendor-hooks", "Vendor_Platform", "1.0", GROUP)
OTHER = PluginSource("other", "other-dist", "0.1", GROUP)


@pytest.fixture
def registry() -> Iterator[HookRegistry]:
    reg = HookRegistry(SRT)
    yield reg
    reg.reset(restore=True)


def plus(n: int) -> Callable[..., int]:
    def around(original: Callable[[int, int], int], x: int, y: int) -> int:
        return original(x, y) + n

    around.__qualname__ = f"plus_{n}"
    return around


def records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == "sglang.plugins" and r.levelno >= logging.WARNING
    ]


# -- late registration and restore -------------------------------------------------


def test_late_registration_is_applied_by_the_next_apply(registry: HookRegistry) -> None:
    original = basic.add
    registry.register(f"{MOD}.add", plus(10), HookType.AROUND)
    registry.apply_hooks()
    first = basic.add
    assert basic.add(1, 1) == 12

    registry.register(f"{MOD}.add", plus(100), HookType.AROUND)
    assert basic.add(1, 1) == 12  # not yet applied ...
    assert [info.status for info in registry.hooks()] == [HookStatus.APPLIED, HookStatus.PENDING]
    assert [info.target for info in registry.pending()] == [f"{MOD}.add"]  # ... but listed

    changed = registry.apply_hooks()
    assert basic.add(1, 1) == 112
    assert basic.add is not first
    assert basic.add.__wrapped__ is original  # type: ignore[attr-defined]  # rebuilt from it
    assert consumer.add is basic.add
    assert {info.status for info in changed} == {HookStatus.APPLIED}


def test_apply_without_changes_changes_nothing(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    registry.apply_hooks()
    installed = basic.add
    assert registry.apply_hooks() == ()
    assert basic.add is installed


def test_restore_undoes_every_patch_and_alias(registry: HookRegistry) -> None:
    originals = (basic.add, basic.Widget, basic.Base.__dict__["method"], consumer.add)
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    registry.register(f"{MOD}.Child.method", lambda r, s, x: r + 1, HookType.AFTER)
    registry.register(f"{MOD}.Widget", type("W", (basic.Widget,), {}), HookType.REPLACE)
    registry.apply_hooks()
    assert "method" in basic.Child.__dict__

    registry.restore()
    assert (basic.add, basic.Widget, basic.Base.__dict__["method"], consumer.add) == originals
    assert consumer.plus is originals[0]
    assert "method" not in basic.Child.__dict__
    assert {info.status for info in registry.hooks()} == {HookStatus.PENDING}

    registry.apply_hooks()  # still registered: applies again
    assert basic.add(1, 1) == 3
    registry.reset()
    assert registry.hooks() == ()
    assert basic.add is originals[0]


# -- alias propagation ---------------------------------------------------------------


def test_aliases_in_other_modules_see_the_patch(registry: HookRegistry) -> None:
    original = basic.add
    sys.modules.pop("tests.hooktargets.late_consumer", None)
    registry.register(f"{MOD}:add", plus(1000), HookType.AROUND)
    registry.apply_hooks()
    assert consumer.use_add(1, 2) == 1003  # ``from basic import add``
    assert consumer.use_plus(1, 2) == 1003  # ``from basic import add as plus``

    import tests.hooktargets.late_consumer as late  # imported after the apply

    assert late.add(1, 2) == 1003
    registry.restore()
    assert consumer.add is original
    assert consumer.plus is original
    assert late.add is original
    sys.modules.pop("tests.hooktargets.late_consumer", None)


def test_modules_defining_the_hooks_keep_the_original(registry: HookRegistry) -> None:
    original_widget, original_add = basic.Widget, basic.add
    registry.register(f"{MOD}.Widget", plugin_like.BigWidget, HookType.REPLACE)
    registry.register(f"{MOD}.add", plugin_like.around_add, HookType.AROUND)
    registry.apply_hooks()
    assert basic.Widget is plugin_like.BigWidget
    assert consumer.Widget is plugin_like.BigWidget
    assert plugin_like.original_widget() is original_widget  # no self-replacement
    assert plugin_like.add is original_add
    assert basic.add(1, 2) == 1003
    assert basic.make_widget(1).describe() == "big widget 1"


# -- class replacement and attribute hooks together -----------------------------------


def test_attribute_hooks_follow_a_class_replacement(registry: HookRegistry) -> None:
    original_class = basic.Widget
    original_describe = original_class.__dict__["describe"]
    registry.register(f"{MOD}.Widget.describe", lambda r, self: r.upper(), HookType.AFTER)
    registry.apply_hooks()
    assert basic.Widget(1).describe() == "WIDGET 1"

    class Plain(basic.Widget):
        pass

    registry.register(f"{MOD}.Widget", Plain, HookType.REPLACE)  # late class replacement
    registry.apply_hooks()
    assert basic.Widget is Plain
    # the method hook moved to the installed class; the original class is restored
    assert basic.Widget.__dict__["describe"] is not original_describe
    assert Plain(2).describe() == "WIDGET 2"
    assert original_class.__dict__["describe"] is original_describe
    assert "describe" in Plain.__dict__  # patched on the subclass, not on its base
    registry.restore()
    assert "describe" not in Plain.__dict__
    assert basic.Widget is original_class


# -- REPLACE conflicts -------------------------------------------------------------------


def test_two_replace_hooks_from_different_sources_warn_naming_both(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    def first(x: int, y: int) -> int:
        return 1

    def second(x: int, y: int) -> int:
        return 2

    registry.register(f"{MOD}.add", first, HookType.REPLACE, source=OBS)
    registry.register(f"{MOD}:add", second, HookType.REPLACE, source=OTHER)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
        registry.apply_hooks()
    [record] = records(caplog)
    message = record.getMessage()
    assert "two REPLACE hooks" in message
    assert "first" in message
    assert "plugin 'obs' (distribution obs-dist 2.0)" in message
    assert "second" in message
    assert "plugin 'other' (distribution other-dist 0.1)" in message
    assert basic.add(1, 1) == 2
    statuses = [(info.hook.rsplit(".", 1)[-1], info.status) for info in registry.hooks()]
    assert statuses == [("first", HookStatus.SUPERSEDED), ("second", HookStatus.APPLIED)]


def test_two_replace_hooks_from_one_source_do_not_warn(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register(f"{MOD}.add", lambda x, y: 1, HookType.REPLACE, source=OBS)
    registry.register(f"{MOD}.add", lambda x, y: 2, HookType.REPLACE, source=OBS)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
    assert records(caplog) == []
    assert basic.add(1, 1) == 2


def test_two_direct_replace_hooks_from_different_modules_warn_naming_both(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register(f"{MOD}.add", plugin_like.around_add, HookType.REPLACE)
    registry.register(f"{MOD}.add", lambda x, y: 2, HookType.REPLACE)  # defined here
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
    [record] = records(caplog)
    message = record.getMessage()
    assert "two REPLACE hooks" in message
    assert "direct registration (module tests.hooktargets.plugin_like)" in message
    assert f"direct registration (module {__name__})" in message
    assert basic.add(1, 1) == 2


# -- a REPLACE of a member of a replaced class ----------------------------------------


def describe_replaced(self: basic.Widget) -> str:
    return f"replaced {self.size}"


def test_a_member_replace_on_a_replaced_class_warns_naming_both_hooks(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    original_describe = basic.Widget.__dict__["describe"]
    own_describe = plugin_like.BigWidget.__dict__["describe"]
    registry.register(f"{MOD}.Widget", plugin_like.BigWidget, HookType.REPLACE, source=OBS)
    registry.register(f"{MOD}.Widget.describe", describe_replaced, HookType.REPLACE, source=OTHER)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
        registry.apply_hooks()
    [record] = records(caplog)
    message = record.getMessage()
    assert "replaces a member of a replaced class" in message
    assert (
        f"{__name__}.describe_replaced of plugin 'other' (distribution other-dist 0.1)" in message
    )
    assert (
        "tests.hooktargets.plugin_like.BigWidget of plugin 'obs' (distribution obs-dist 2.0)"
        in (message)
    )
    assert "defines itself, so that implementation no longer runs" in message
    assert "AROUND" in message
    assert "SGLANG_PLUGINS" in message
    # the replacement class carries the member hook; the original keeps its method
    assert basic.Widget is plugin_like.BigWidget
    assert basic.Widget(3).describe() == "replaced 3"
    assert basic.Widget.__dict__["describe"] is describe_replaced
    assert plugin_like.Widget.__dict__["describe"] is original_describe
    statuses = [(info.status, info.location) for info in registry.hooks()]
    assert statuses == [
        (HookStatus.APPLIED, f"{MOD}.Widget"),
        (HookStatus.APPLIED, "tests.hooktargets.plugin_like.BigWidget.describe"),
    ]
    registry.restore()
    assert plugin_like.BigWidget.__dict__["describe"] is own_describe


def test_a_member_replace_on_a_replacement_inheriting_it_warns_too(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    original_class = basic.Widget

    class Plain(basic.Widget):
        pass

    registry.register(f"{MOD}.Widget.describe", describe_replaced, HookType.REPLACE)
    registry.apply_hooks()  # first on the original class
    assert original_class(1).describe() == "replaced 1"
    registry.register(f"{MOD}.Widget", Plain, HookType.REPLACE)  # then the class is replaced
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
    [record] = records(caplog)
    message = record.getMessage()
    assert f"{__name__}.describe_replaced of direct registration (module {__name__})" in message
    assert "Plain of direct registration" in message
    assert "inherits describe, and the hook is installed on it, not on the original" in message
    assert f"{MOD}.Widget and objects built from it keep the original describe" in message
    # moved: on the replacement class now, the original class is back to its own method
    assert basic.Widget(2).describe() == "replaced 2"
    assert "describe" in Plain.__dict__
    assert original_class(2).describe() == "widget 2"


def test_other_hooks_on_a_member_of_a_replaced_class_do_not_warn(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register(f"{MOD}.Widget", plugin_like.BigWidget, HookType.REPLACE, source=OBS)
    registry.register(f"{MOD}.Widget.describe", lambda r, s: r.upper(), HookType.AFTER)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
    assert records(caplog) == []
    assert basic.Widget(1).describe() == "BIG WIDGET 1"


# -- failure policy ----------------------------------------------------------------------


def test_best_effort_failure_warns_once_and_the_rest_applies(
    registry: HookRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.missing", plus(1), HookType.AROUND, source=OBS)
    registry.register("tests.hooktargets.nonexistent:f", plus(1), HookType.AROUND, source=OBS)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
        registry.register(f"{MOD}.add", plus(10), HookType.AROUND, source=OBS)
        registry.apply_hooks()  # re-apply: the failures are not warned again
    warnings = records(caplog)
    assert len(warnings) == 2
    missing, nonexistent = (w.getMessage() for w in warnings)
    for message in (missing, nonexistent):
        assert "plugin 'obs' (distribution obs-dist 2.0)" in message
        assert "best-effort" in message
        assert "SGLANG_PLUGINS" in message
    assert f"'{MOD}.missing'" in missing
    assert "has no attribute 'missing'" in missing
    assert "cannot import module 'tests.hooktargets.nonexistent'" in nonexistent
    assert "ModuleNotFoundError" in nonexistent
    assert basic.add(1, 1) == 13
    assert [info.status for info in registry.hooks()] == [
        HookStatus.APPLIED,
        HookStatus.FAILED,
        HookStatus.FAILED,
        HookStatus.APPLIED,
    ]


def test_required_failure_rolls_back_the_whole_apply_and_raises(
    registry: HookRegistry,
) -> None:
    original_add, original_double = basic.add, basic.Base.__dict__["double"]
    registry.register(f"{MOD}.Base.method", lambda r, s, x: r, HookType.AFTER, source=VENDOR)
    registry.apply_hooks(required_dists={"vendor-platform"})
    applied_before = basic.Base.__dict__["method"]

    registry.set_required_dists({"Vendor-Platform"})
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=VENDOR)
    registry.register(f"{MOD}.Base.double", lambda x: 0, HookType.REPLACE, source=OBS)
    registry.register(f"{MOD}.Nope.f", plus(1), HookType.AROUND, source=VENDOR)
    with pytest.raises(HookApplyError) as info:
        registry.apply_hooks()
    message = str(info.value)
    assert "plugin 'vendor-hooks' (distribution Vendor_Platform 1.0)" in message
    assert f"'{MOD}.Nope.f'" in message
    assert "has no attribute or submodule 'Nope'" in message
    assert "rolled back" in message
    assert "SGLANG_PLUGINS" in message
    # nothing of this apply stays: neither the same plugin's hook nor another's
    assert basic.add is original_add
    assert consumer.add is original_add
    assert basic.Base.__dict__["double"] is original_double
    # what an earlier apply installed stays
    assert basic.Base.__dict__["method"] is applied_before
    failed = info.value.info
    assert failed.status is HookStatus.FAILED
    assert failed.source == VENDOR
    statuses = [i.status for i in registry.hooks()]
    assert statuses == [
        HookStatus.APPLIED,
        HookStatus.PENDING,
        HookStatus.PENDING,
        HookStatus.FAILED,
    ]


def test_direct_registrations_are_required(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    registry.register(f"{MOD}.absent", plus(1), HookType.AROUND)
    with pytest.raises(HookApplyError, match="direct registration") as info:
        registry.apply_hooks()
    assert "Fix the target path or the hook in module tests.unit.test_hooks_apply" in str(
        info.value
    )
    assert basic.add(1, 1) == 2


def test_disabled_source_is_taken_out_by_the_next_apply(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.add", plus(10), HookType.AROUND, source=OTHER)
    registry.apply_hooks()
    assert basic.add(0, 0) == 11
    assert registry.disable_source(OBS, "its plugin failed") == 1
    registry.apply_hooks()
    assert basic.add(0, 0) == 10
    assert registry.hooks()[0].status is HookStatus.DISABLED
    assert registry.hooks()[0].reason == "its plugin failed"


def test_excluded_dists_are_disabled_now_and_later_until_reset(registry: HookRegistry) -> None:
    platform = PluginSource("vendor", "Vendor_Platform", "1.0", "sglang.srt.platforms")
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.add", plus(10), HookType.AROUND, source=platform)
    registry.register(f"{MOD}.add", plus(100), HookType.AROUND, source=VENDOR)
    registry.register(f"{MOD}.add", plus(1000), HookType.AROUND)  # direct: never excluded
    registry.apply_hooks()
    assert basic.add(0, 0) == 1111
    reason = "distribution vendor-platform provides a platform that was not selected"
    # any spelling of the name; both entry points of the distribution
    assert registry.exclude_dists(["vendor.platform"], reason) == 2
    assert registry.excluded_dists == frozenset({"vendor-platform"})
    registry.apply_hooks()  # the applied ones are taken out
    assert basic.add(0, 0) == 1001
    assert [(i.status, i.reason) for i in registry.hooks()] == [
        (HookStatus.APPLIED, None),
        (HookStatus.DISABLED, reason),
        (HookStatus.DISABLED, reason),
        (HookStatus.APPLIED, None),
    ]
    # registered later from an excluded distribution: disabled at registration
    with plugin_source(VENDOR):
        registry.register(f"{MOD}.add", plus(20), HookType.AROUND)
    assert registry.hooks()[-1].status is HookStatus.DISABLED
    assert registry.hooks()[-1].reason == reason
    registry.apply_hooks()
    assert basic.add(0, 0) == 1001
    # reset forgets the exclusion
    registry.reset()
    assert registry.excluded_dists == frozenset()
    registry.register(f"{MOD}.add", plus(20), HookType.AROUND, source=VENDOR)
    registry.apply_hooks()
    assert registry.hooks()[0].status is HookStatus.APPLIED
    assert basic.add(0, 0) == 20


# -- sources and reports -------------------------------------------------------------------


def test_source_comes_from_the_context_variable(registry: HookRegistry) -> None:
    with plugin_source(OBS):
        registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    with plugin_source(OBS):
        registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OTHER)
    assert [info.source for info in registry.hooks()] == [OBS, None, OTHER]


def test_hooks_report_lists_target_type_source_and_status(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.gone", plus(1), HookType.BEFORE, source=OBS)
    registry.apply_hooks()
    applied, failed = registry.hooks()
    assert applied.target == f"{MOD}.add"
    assert applied.hook_type is HookType.AROUND
    assert applied.hook == "tests.unit.test_hooks_apply.plus_1"
    assert applied.source == OBS
    assert applied.status is HookStatus.APPLIED
    assert applied.location == f"{MOD}.add"
    assert failed.status is HookStatus.FAILED
    assert failed.reason is not None
    assert "no attribute 'gone'" in failed.reason
    table = registry.format()
    assert table.splitlines()[0].split() == ["TARGET", "TYPE", "HOOK", "SOURCE", "STATUS"]
    assert "plugin 'obs' (distribution obs-dist 2.0)" in table
    assert "failed: " in table


def test_each_runtime_has_its_own_registry() -> None:
    from sglang.multimodal_gen.runtime.platforms import plugins as diffusion
    from sglang.srt.plugins import hook_registry as srt

    assert srt.HookRegistry is not diffusion.HookRegistry
    assert srt.HookRegistry.runtime.name == "srt"
    assert diffusion.HookRegistry.runtime.name == "diffusion"
    diffusion.HookRegistry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    try:
        srt.HookRegistry.apply_hooks()  # SRT never applies diffusion's hooks
        assert basic.add(1, 1) == 2
        assert srt.HookRegistry.hooks() == ()
    finally:
        diffusion.HookRegistry.reset()


def test_a_target_that_refuses_patching_fails_cleanly(registry: HookRegistry) -> None:
    registry.register("builtins.dict.get", lambda r, *a: r, HookType.AFTER, source=OBS)
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND, source=OBS)
    registry.apply_hooks()
    refused, applied = registry.hooks()
    assert refused.status is HookStatus.FAILED
    assert refused.reason is not None
    assert "cannot patch builtins.dict.get: TypeError" in refused.reason
    assert applied.status is HookStatus.APPLIED
    empty: dict[str, int] = {}
    assert empty.get("x", 5) == 5


def test_hooks_registered_while_applying_stay_pending(registry: HookRegistry) -> None:
    sys.modules.pop("tests.hooktargets.lazy", None)

    def register_more(original: Callable[[int], int], x: int) -> int:
        return original(x)

    # the target's import registers another hook (as a module imported by apply might)
    import tests.hooktargets as package

    package.IMPORTS.clear()
    registry.register("tests.hooktargets.lazy.compute", register_more, HookType.AROUND)
    registry.register(f"{MOD}.add", plus(1), HookType.AROUND)
    original_append = package.IMPORTS.append

    def append_and_register(name: str) -> None:
        original_append(name)
        registry.register(f"{MOD}.Base.double", lambda x: 99, HookType.REPLACE)

    package.IMPORTS = _Recorder(append_and_register)
    try:
        registry.apply_hooks()
    finally:
        package.IMPORTS = []
        sys.modules.pop("tests.hooktargets.lazy", None)
    # the hook registered during the apply was applied by the same apply
    assert basic.Base.double(1) == 99
    assert {info.status for info in registry.hooks()} == {HookStatus.APPLIED}


class _Recorder(list[str]):
    def __init__(self, on_append: Callable[[str], None]) -> None:
        super().__init__()
        self._on_append = on_append

    def append(self, name: str) -> None:
        self._on_append(name)


# -- inherited members follow their base class's hooks ---------------------------------


def _call(member: str, cls: type[basic.Base]) -> int:
    value: object = getattr(cls(1), member)(2)
    if asyncio.iscoroutine(value):
        value = asyncio.run(value)
    assert isinstance(value, int)
    return value


def _offset(n: int) -> Callable[..., object]:
    """An AFTER hook adding *n* to the result (works for every target kind)."""

    def after(result: int, *args: object, **kwargs: object) -> int:
        return result + n

    return after


INHERITED = ["method", "scaled", "double", "amethod", "ascaled"]


@pytest.mark.parametrize("member", INHERITED)
def test_an_inherited_member_sees_base_hooks_applied_later(
    registry: HookRegistry, member: str
) -> None:
    child_plain, base_plain = _call(member, basic.Child), _call(member, basic.Base)
    registry.register(f"{MOD}.Child.{member}", _offset(100), HookType.AFTER, source=OBS)
    registry.apply_hooks()
    registry.register(f"{MOD}.Base.{member}", _offset(1000), HookType.AFTER, source=OTHER)
    registry.apply_hooks()  # late: Child's chain must now wrap Base's new chain
    assert _call(member, basic.Base) == base_plain + 1000
    assert _call(member, basic.Child) == child_plain + 1100
    registry.restore()
    assert _call(member, basic.Child) == child_plain
    assert member not in basic.Child.__dict__


@pytest.mark.parametrize("member", INHERITED)
def test_a_disabled_base_hook_stops_running_through_subclasses(
    registry: HookRegistry, member: str
) -> None:
    child_plain = _call(member, basic.Child)
    registry.register(f"{MOD}.Base.{member}", _offset(1000), HookType.AFTER, source=OTHER)
    registry.register(f"{MOD}.Child.{member}", _offset(100), HookType.AFTER, source=OBS)
    registry.apply_hooks()
    assert _call(member, basic.Child) == child_plain + 1100
    registry.disable_source(OTHER, "its plugin failed")
    registry.apply_hooks()
    assert _call(member, basic.Child) == child_plain + 100


def test_a_submodule_failing_to_import_names_the_submodule_and_its_error(
    registry: HookRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "hookpkg_broken"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("import hookpkg_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("hookpkg_broken.mod.f", print, HookType.AFTER, source=OBS)
    registry.register("hookpkg_broken.absent.f", print, HookType.AFTER, source=OBS)
    try:
        registry.apply_hooks()
    finally:
        for name in [m for m in sys.modules if m.startswith("hookpkg_broken")]:
            del sys.modules[name]
    broken, absent = registry.hooks()
    assert broken.reason == (
        "cannot import module 'hookpkg_broken.mod': ModuleNotFoundError: "
        "No module named 'hookpkg_missing_dependency'"
    )
    assert absent.reason == "module 'hookpkg_broken' has no attribute or submodule 'absent'"
