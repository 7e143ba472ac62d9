"""Hooks whose target did not exist yet are retried by every later apply."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sglang.runtime.hooks import HookApplyError, HookRegistry, HookStatus, HookType, PluginSource
from sglang.runtime.spec import SRT
from tests.hooktargets import basic

MOD = "tests.hooktargets.basic"
OBS = PluginSource("obs", "obs-dist", "2.0", "sglang.srt.plugins")
VENDOR = PluginSource("vendor-hooks", "vendor-platform", "1.0", "sglang.srt.plugins")


@pytest.fixture
def registry() -> Iterator[HookRegistry]:
    reg = HookRegistry(SRT)
    yield reg
    reg.reset(restore=True)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` where a test writes modules; they are unloaded after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.split(".")[0].startswith("retry_")]:
        del sys.modules[name]


def times(n: int) -> Callable[..., int]:
    def around(original: Callable[..., int], *args: int) -> int:
        return original(*args) * n

    return around


def plugin_records(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == "sglang.plugins" and r.levelno == level
    ]


def test_a_module_that_appears_later_is_hooked_by_the_next_apply(
    registry: HookRegistry, site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register("retry_late.f", times(10), HookType.AROUND, source=OBS)
    with caplog.at_level(logging.INFO, logger="sglang.plugins"):
        registry.apply_hooks()
        [info] = registry.hooks()
        assert info.status is HookStatus.FAILED
        assert info.retried
        assert "cannot import module 'retry_late'" in (info.reason or "")
        assert "retried by the next apply_hooks()" in registry.format()
        assert registry.pending() == (info,)  # the next apply tries it

        assert registry.apply_hooks() == ()  # still missing: nothing changed ...
        [warning] = plugin_records(caplog, logging.WARNING)  # ... and warned once only
        assert "plugin 'obs' (distribution obs-dist 2.0)" in warning
        assert "every later apply_hooks() tries it again" in warning

        (site / "retry_late.py").write_text("def f(x):\n    return x + 1\n")
        [changed] = registry.apply_hooks()
    import retry_late  # type: ignore[import-not-found]  # written by this test

    assert changed.status is HookStatus.APPLIED
    assert not changed.retried
    assert retry_late.f(1) == 20
    assert registry.pending() == ()
    assert "applied" in registry.format()
    [recovered] = plugin_records(caplog, logging.INFO)
    assert "is applied now: its target exists" in recovered
    assert "cannot import module 'retry_late'" in recovered
    assert len(plugin_records(caplog, logging.WARNING)) == 1


def test_an_attribute_that_appears_later_is_hooked_by_the_next_apply(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.register(f"{MOD}.late", times(3), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.Base.late_method", times(5), HookType.AROUND, source=OBS)
    registry.apply_hooks()
    assert [info.retried for info in registry.hooks()] == [True, True]

    def late(x: int) -> int:
        return x

    def late_method(self: basic.Base, x: int) -> int:
        return self.value + x

    monkeypatch.setattr(basic, "late", late, raising=False)
    monkeypatch.setattr(basic.Base, "late_method", late_method, raising=False)
    registry.apply_hooks()
    assert [info.status for info in registry.hooks()] == [HookStatus.APPLIED] * 2
    assert basic.late(2) == 6  # type: ignore[attr-defined]
    assert basic.Base(1).late_method(1) == 10  # type: ignore[attr-defined]
    registry.restore()
    assert basic.late is late  # type: ignore[attr-defined]


def test_a_changed_failure_is_warned_again(
    registry: HookRegistry, site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    registry.register("retry_changing.f", times(2), HookType.AROUND, source=OBS)
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        registry.apply_hooks()
        (site / "retry_changing.py").write_text("g = 1\n")  # the module, not yet the function
        registry.apply_hooks()
        registry.apply_hooks()
    first, second = plugin_records(caplog, logging.WARNING)
    assert "cannot import module 'retry_changing'" in first
    assert "module 'retry_changing' has no attribute 'f'" in second
    assert registry.hooks()[0].retried


def test_a_required_hook_fails_every_apply_until_its_target_exists(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.set_required_dists({"vendor-platform"})
    registry.register(f"{MOD}.add", times(10), HookType.AROUND, source=VENDOR)
    registry.register(f"{MOD}.later", times(10), HookType.AROUND, source=VENDOR)
    for _ in range(2):  # not applied silently by a second apply
        with pytest.raises(HookApplyError, match="the next apply_hooks\\(\\) tries it again"):
            registry.apply_hooks()
        assert basic.add(1, 1) == 2  # rolled back
        assert [info.status for info in registry.hooks()] == [
            HookStatus.PENDING,
            HookStatus.FAILED,
        ]

    def later(x: int) -> int:
        return x

    monkeypatch.setattr(basic, "later", later, raising=False)
    registry.apply_hooks()
    assert basic.add(1, 1) == 20
    assert basic.later(1) == 10  # type: ignore[attr-defined]


def test_a_retry_succeeding_in_a_rolled_back_apply_stays_retried(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.register(f"{MOD}.later", times(10), HookType.AROUND, source=OBS)
    registry.apply_hooks()
    monkeypatch.setattr(basic, "later", lambda x: x, raising=False)
    registry.register(f"{MOD}.absent", times(10), HookType.AROUND)  # direct: required
    with pytest.raises(HookApplyError):
        registry.apply_hooks()
    later, absent = registry.hooks()
    assert (later.status, later.retried) == (HookStatus.FAILED, True)  # as before the apply
    assert basic.later(1) == 1  # type: ignore[attr-defined]
    assert absent.retried


def test_a_module_raising_while_imported_is_not_retried(registry: HookRegistry, site: Path) -> None:
    (site / "retry_broken.py").write_text(
        "import retry_counter\nretry_counter.IMPORTS += 1\nimport retry_missing_dependency\n"
    )
    (site / "retry_counter.py").write_text("IMPORTS = 0\n")
    registry.register("retry_broken.f", times(2), HookType.AROUND, source=OBS)
    registry.apply_hooks()
    registry.apply_hooks()
    import retry_counter  # type: ignore[import-not-found]  # written by this test

    [info] = registry.hooks()
    assert info.status is HookStatus.FAILED
    assert not info.retried  # broken, not missing: re-running it would repeat its side effects
    assert "No module named 'retry_missing_dependency'" in (info.reason or "")
    assert retry_counter.IMPORTS == 1
    assert registry.pending() == ()
    assert "retried" not in registry.format()


def test_a_hook_that_does_not_fit_its_target_is_not_retried(registry: HookRegistry) -> None:
    registry.register(f"{MOD}.Widget", times(2), HookType.AROUND, source=OBS)
    registry.apply_hooks()
    [info] = registry.hooks()
    assert (info.status, info.retried) == (HookStatus.FAILED, False)
    assert registry.apply_hooks() == ()


def test_disabled_and_excluded_hooks_are_no_longer_retried(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.register(f"{MOD}.later", times(10), HookType.AROUND, source=OBS)
    registry.register(f"{MOD}.later", times(100), HookType.AROUND, source=VENDOR)
    registry.apply_hooks()
    assert registry.disable_source(OBS, "its plugin failed") == 1
    assert registry.exclude_dists(["vendor-platform"], "not selected") == 1
    monkeypatch.setattr(basic, "later", lambda x: x, raising=False)
    registry.apply_hooks()
    assert [(i.status, i.reason) for i in registry.hooks()] == [
        (HookStatus.DISABLED, "its plugin failed"),
        (HookStatus.DISABLED, "not selected"),
    ]
    assert basic.later(1) == 1  # type: ignore[attr-defined]
