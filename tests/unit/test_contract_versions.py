"""The version rule, once for serve backends, platforms and hooks, with substituted tables.

Each contract's support table is substituted in :data:`sglang.runtime.versions.TABLES`
(the release supports only version 1 today, so a deprecated version needs a
table of a later release): the current version is accepted silently, a
deprecated one with exactly one WARNING naming the plugin and what to change,
anything else is refused with the value, the supported set and the fix.
Plugins are real ``*.dist-info`` distributions on ``sys.path``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest

from sglang.cli.serve._errors import ServeError
from sglang.cli.serve._validate import check_backend
from sglang.runtime import DIFFUSION, SRT, versions
from sglang.runtime.discovery import EntryPointRecord, entry_point_index, refresh
from sglang.runtime.hooks import HookApplyError, HookRegistry, HookStatus, HookType, PluginSource
from sglang.runtime.selection import PlatformContractError, ReportBuilder, select
from sglang.sdk.constants import SERVE_BACKENDS_GROUP
from sglang.sdk.contract import ContractVersions, VersionStatus
from sglang.sdk.targets import HOOK_TARGETS
from tests.hooktargets import basic
from tests.integration.test_selection_support import plugin
from tests.support.dists import Dist, Site

NEXT_RELEASE = ContractVersions("a contract", 2, frozenset({1, 2}), "run() takes a context")
"""A later release's table: version 2 current, version 1 deprecated."""
AFTER_THAT = ContractVersions("a contract", 2, frozenset({2}))
"""The release after: version 1 no longer accepted."""


@pytest.fixture(autouse=True)
def fresh_warnings() -> Iterator[None]:
    versions.reset_warnings()
    yield
    versions.reset_warnings()


def warnings_of(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger and r.levelno >= 30]


# -- the table -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "status"),
    [
        (2, VersionStatus.CURRENT),
        (1, VersionStatus.DEPRECATED),
        (3, VersionStatus.UNSUPPORTED),
        (0, VersionStatus.UNSUPPORTED),
        (True, VersionStatus.UNSUPPORTED),
        ("2", VersionStatus.UNSUPPORTED),
        (None, VersionStatus.UNSUPPORTED),
    ],
)
def test_a_table_judges_declared_versions(declared: object, status: VersionStatus) -> None:
    assert NEXT_RELEASE.status(declared) is status
    assert NEXT_RELEASE.deprecated == {1}
    assert NEXT_RELEASE.supported_text() == "1, 2"


def test_a_table_must_support_its_current_version() -> None:
    with pytest.raises(ValueError, match="current version 3 is not supported"):
        ContractVersions("x", 3, frozenset({1}))


def test_documented_hook_targets_have_tables_and_others_do_not() -> None:
    path = next(iter(HOOK_TARGETS))
    found = versions.versions_for(versions.hook_key(path.replace(".ServerArgs", ":ServerArgs")))
    assert found is not None
    assert found.current == 1
    assert versions.versions_for(versions.hook_key("tests.hooktargets.basic.add")) is None
    with pytest.raises(KeyError):
        versions.judge("hook:pkg.undocumented", 1)


def test_a_deprecation_is_warned_once_per_plugin(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    assert versions.warn_deprecated("k", "plugin-a", "old", logger="t")
    assert not versions.warn_deprecated("k", "plugin-a", "old", logger="t")
    assert versions.warn_deprecated("k", "plugin-b", "old", logger="t")
    assert warnings_of(caplog, "t") == ["old", "old"]


# -- platforms ---------------------------------------------------------------------------

VERSIONED = """
from typing import ClassVar, Literal
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

class Plat(SRTPlatform):
    _enum = PlatformEnum.OOT
    device_name = "vers"
    {declaration}
"""


def select_versioned(site: Site, declaration: str) -> object:
    site.install(
        plugin("vers-dist", "vers", platform_source=VERSIONED.format(declaration=declaration))
    )
    refresh()
    report = ReportBuilder(SRT)
    selected = select(
        SRT,
        report,
        environ={"SGLANG_PLATFORM": "vers"},
        index=entry_point_index(),
        probe_context=lambda: pytest.fail("no probing"),
    )
    return selected.platform


@pytest.mark.parametrize(
    "declaration", ["api_version: ClassVar[Literal[1]] = 1", "api_version = 1", "pass"]
)
def test_declared_and_undeclared_version_1_is_selected(site: Site, declaration: str) -> None:
    assert type(select_versioned(site, declaration)).__name__ == "Plat"


def test_an_unsupported_platform_version_is_refused(site: Site) -> None:
    with pytest.raises(PlatformContractError) as caught:
        select_versioned(site, "api_version = 2")
    message = str(caught.value)
    assert "SRT platform plugin 'vers' (distribution vers-dist 1.0)" in message
    assert "platform class vers_dist.platform.Plat declares api_version=2" in message
    assert "the SRT platform contract: supported 1, current 1" in message
    assert "Fix: install a release of vers-dist 1.0 built for this sglang" in message
    assert "api_version: ClassVar[Literal[1]] = 1" in message


def test_an_unsupported_diffusion_platform_version_is_refused(site: Site) -> None:
    source = (
        "from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum\n\n"
        "class Plat(Platform):\n"
        "    _enum = PlatformEnum.OOT\n"
        "    device_name = device_type = 'vers'\n"
        "    api_version = 3\n"
    )
    site.install(plugin("dvers-dist", "dvers", runtime="diffusion", platform_source=source))
    refresh()
    with pytest.raises(PlatformContractError) as caught:
        select(
            DIFFUSION,
            ReportBuilder(DIFFUSION),
            environ={"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "dvers"},
            index=entry_point_index(),
            probe_context=lambda: pytest.fail("no probing"),
        )
    assert "declares api_version=3" in str(caught.value)
    assert "(the diffusion platform contract: supported 1, current 1)" in str(caught.value)


def test_a_deprecated_platform_version_warns_once(
    site: Site, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(versions.TABLES, "srt-platform", NEXT_RELEASE)
    caplog.set_level(logging.WARNING)
    select_versioned(site, "api_version = 1")
    select_versioned(site, "api_version = 1")
    [warning] = warnings_of(caplog, "sglang.runtime.selection")
    assert "SRT platform plugin 'vers' (distribution vers-dist 1.0)" in warning
    assert "declares api_version=1 of a contract, which is deprecated" in warning
    assert "implements version 2 and accepts 1 only until its next minor release" in warning
    assert "What changed: run() takes a context" in warning
    assert "declare api_version: ClassVar[Literal[2]] = 2" in warning


def test_an_undeclared_class_is_refused_once_version_1_is_dropped(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(versions.TABLES, "srt-platform", AFTER_THAT)
    with pytest.raises(PlatformContractError, match=r"no api_version in its body, so version 1"):
        select_versioned(site, "pass")


# -- serve backends ------------------------------------------------------------------------


def backend_record(site: Site) -> EntryPointRecord:
    site.install(
        Dist(
            "old-backend",
            "3.0",
            entry_points={SERVE_BACKENDS_GROUP: {"old": "old_backend:create"}},
            modules={
                "old_backend/__init__.py": (
                    "from sglang.cli.serve_backends import ServeBackend\n\n"
                    "def create():\n"
                    "    return ServeBackend(api_version=1, run=lambda request: None)\n"
                )
            },
        )
    )
    refresh()
    [record] = entry_point_index().group(SERVE_BACKENDS_GROUP)
    return record


def reject(record: EntryPointRecord, reason: str, fix: str) -> ServeError:
    return ServeError(f"{record.name}: {reason}; {fix}")


def test_a_deprecated_backend_version_warns_once(
    site: Site, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(versions.TABLES, "serve-backend", NEXT_RELEASE)
    caplog.set_level(logging.WARNING)
    record = backend_record(site)
    assert check_backend(record, reject).api_version == 1
    check_backend(record, reject)
    [warning] = warnings_of(caplog, "sglang.cli.serve")
    assert "serve backend 'old' of old-backend 3.0 (old_backend:create)" in warning
    assert "return ServeBackend(api_version=2, ...)" in warning


def test_a_dropped_backend_version_is_refused(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(versions.TABLES, "serve-backend", AFTER_THAT)
    with pytest.raises(
        ServeError, match=r"api_version=1 is not supported by sglang \(supported: 2\)"
    ):
        check_backend(backend_record(site), reject)


# -- hooks -----------------------------------------------------------------------------------

TARGET = "tests.hooktargets.basic.add"
PLUGIN = PluginSource("vers-hooks", "vers-hooks-dist", "1.5", "sglang.srt.plugins")


@pytest.fixture
def registry() -> Iterator[HookRegistry]:
    reg = HookRegistry(SRT)
    yield reg
    reg.reset(restore=True)


def plus_one(original: Callable[[int, int], int], x: int, y: int) -> int:
    return original(x, y) + 1


def documented(monkeypatch: pytest.MonkeyPatch, table: ContractVersions) -> None:
    """Make the test target a documented one with *table*."""
    monkeypatch.setitem(versions.TABLES, versions.hook_key(TARGET), table)


def test_a_stale_hook_version_is_refused_at_apply(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    documented(monkeypatch, AFTER_THAT)
    caplog.set_level(logging.WARNING)
    registry.register(TARGET, plus_one, HookType.AROUND, source=PLUGIN, api_version=1)
    registry.apply_hooks()
    [info] = registry.hooks()
    assert info.status is HookStatus.FAILED
    assert not info.retried
    assert info.api_version == 1
    assert "declares api_version=1, which this sglang does not support" in (info.reason or "")
    assert "supported 2, current 2" in (info.reason or "")
    assert basic.add(1, 1) == 2  # not applied
    [warning] = warnings_of(caplog, "sglang.plugins")
    assert "plugin 'vers-hooks' (distribution vers-hooks-dist 1.5)" in warning
    assert f"on target {TARGET!r}" in warning


def test_a_stale_required_hook_aborts_the_apply(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    documented(monkeypatch, AFTER_THAT)
    registry.register(TARGET, plus_one, HookType.AROUND, api_version=1)
    with pytest.raises(HookApplyError, match=r"declares api_version=1.*supported 2"):
        registry.apply_hooks()
    assert basic.add(1, 1) == 2


def test_a_stale_version_on_a_real_documented_target_fails_before_importing_it(
    registry: HookRegistry,
) -> None:
    path = "sglang.srt.managers.scheduler.Scheduler.run_batch"
    registry.register(path, plus_one, HookType.AROUND, source=PLUGIN, api_version=cast("Any", 7))
    registry.apply_hooks()
    [info] = registry.hooks()
    assert info.status is HookStatus.FAILED
    assert "(self, batch: ScheduleBatch) -> GenerationBatchResult" in (info.reason or "")
    assert info.location is None  # the target was never located


def test_a_deprecated_hook_version_applies_with_one_warning(
    registry: HookRegistry, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    documented(monkeypatch, NEXT_RELEASE)
    caplog.set_level(logging.WARNING)
    registry.plugin_hook(TARGET, type=HookType.AROUND, api_version=1)(plus_one)
    registry.apply_hooks()
    assert basic.add(1, 1) == 3
    registry.restore()
    registry.apply_hooks()
    [warning] = warnings_of(caplog, "sglang.plugins")
    assert "declares api_version=1 of a contract, which is deprecated" in warning
    assert f"on target {TARGET!r}" in warning
    assert "state api_version=2" in warning


@pytest.mark.parametrize("version", [None, 1, 5])
def test_an_undocumented_target_ignores_the_version(
    registry: HookRegistry, version: int | None
) -> None:
    registry.register(TARGET, plus_one, HookType.AROUND, api_version=cast("Any", version))
    registry.apply_hooks()
    assert basic.add(1, 1) == 3


@pytest.mark.parametrize("version", ["1", 1.0, True])
def test_a_version_that_is_not_an_int_is_a_type_error(
    registry: HookRegistry, version: object
) -> None:
    with pytest.raises(TypeError, match=r"api_version for target .* must be an int literal"):
        registry.register(TARGET, plus_one, HookType.AROUND, api_version=cast("Any", version))


# -- sglang plugins check reports deprecations as findings, not log lines ------------------------


def test_plugins_check_reports_deprecated_versions_as_warnings(
    site: Site, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from sglang.cli.plugins.check import check_plugins
    from sglang.runtime.plugins import runtime_plugins

    for key in ("serve-backend", "srt-platform", versions.hook_key(TARGET)):
        monkeypatch.setitem(versions.TABLES, key, NEXT_RELEASE)
    backend_record(site)
    site.install(
        plugin("vers-dist", "vers", platform_source=VERSIONED.format(declaration="api_version = 1"))
    )
    site.install(
        Dist(
            "vers-hooks-dist",
            entry_points={"sglang.srt.plugins": {"vers-hooks": "vers_hooks:register"}},
            modules={
                "vers_hooks/__init__.py": (
                    "from sglang.srt.plugins.hook_registry import HookRegistry, HookType\n\n"
                    "def register():\n"
                    f"    HookRegistry.register({TARGET!r}, print, HookType.BEFORE,\n"
                    "                          api_version=1)\n"
                )
            },
        )
    )
    refresh()
    caplog.set_level(logging.WARNING)
    try:
        checks = {check.name: check for check in check_plugins([])}
    finally:
        runtime_plugins(SRT).registry.reset()
    codes = {name: {f.code: f.severity.value for f in c.findings} for name, c in checks.items()}
    assert codes["old"]["api-version-deprecated"] == "warning"
    assert codes["vers"]["api-version-deprecated"] == "warning"
    assert codes["vers-hooks"] == {"hook-version-deprecated": "warning"}
    assert warnings_of(caplog, "sglang.cli.serve") == []  # a finding, not a log line
