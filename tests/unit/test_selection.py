"""In-process tests of the selection engine's pieces.

The engine takes its environment explicitly, so these tests pass a dict
instead of touching ``os.environ``; plugins are real ``*.dist-info``
distributions on ``sys.path`` (the ``site`` fixture).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from sglang.runtime import DIFFUSION, SRT, RuntimeSpec
from sglang.runtime.builtin.families import ProbeContext
from sglang.runtime.discovery import entry_point_index, refresh
from sglang.runtime.environment import parse_allowlist
from sglang.runtime.selection import (
    CallbackStatus,
    PlatformContractError,
    PlatformSelectionError,
    ReportBuilder,
    Selected,
    SelectionMode,
    import_qualname,
    reset_selection,
    resolve_platform,
    select,
    selected_platform_dist,
    selection_report,
)
from sglang.sdk.constants import SRT_PLATFORMS_GROUP
from tests.integration.test_selection_support import plugin
from tests.support.dists import REPO_ROOT, Dist, Site
from tests.support.isolation import clean_environment


def no_probing() -> ProbeContext:
    raise AssertionError("the hardware must not be probed")


def run(spec: RuntimeSpec, environ: dict[str, str]) -> tuple[Selected, ReportBuilder]:
    refresh()  # the tests install into the site after the fixture scanned it
    report = ReportBuilder(spec)
    result = select(
        spec, report, environ=environ, index=entry_point_index(), probe_context=no_probing
    )
    return result, report


@pytest.fixture
def clean_srt() -> Iterator[None]:
    """Forget the process-wide SRT selection before and after the test."""
    reset_selection(SRT)
    yield
    reset_selection(SRT)


# -- qualnames ---------------------------------------------------------------------------


def test_import_qualname_spellings() -> None:
    from sglang.runtime.builtin.srt import CpuSRTPlatform

    assert import_qualname("sglang.runtime.builtin.srt:CpuSRTPlatform") is CpuSRTPlatform
    assert import_qualname("sglang.runtime.builtin.srt.CpuSRTPlatform") is CpuSRTPlatform
    assert import_qualname(" sglang.runtime.builtin.srt.CpuSRTPlatform ") is CpuSRTPlatform
    family = import_qualname("sglang.runtime.builtin.srt.CpuSRTPlatform._family")
    assert family is CpuSRTPlatform._family


@pytest.mark.parametrize("bad", ["", "Cls", "pkg.", ":Cls", "pkg:", "a..b"])
def test_malformed_qualnames(bad: str) -> None:
    with pytest.raises(ValueError, match="malformed qualname"):
        import_qualname(bad)


def test_missing_module_and_attribute() -> None:
    with pytest.raises(ModuleNotFoundError):
        import_qualname("no_such_pkg_xyz.mod.Cls")
    with pytest.raises(AttributeError):
        import_qualname("sglang.runtime.builtin.srt.NoSuchClass")


def test_import_error_inside_an_existing_module_propagates(site: Site) -> None:
    site.install(Dist("inner", modules={"inner_pkg/__init__.py": "import no_such_dep_xyz\n"}))
    with pytest.raises(ModuleNotFoundError, match="no_such_dep_xyz"):
        import_qualname("inner_pkg.Cls")


# -- the engine in-process ---------------------------------------------------------------


def test_explicit_and_auto_in_process(site: Site) -> None:
    site.install(plugin("inproc-dist", "inproc"))
    site.install(plugin("idle-dist", "idle", returns=None))
    result, report = run(SRT, {"SGLANG_PLATFORM": "inproc"})
    assert type(result.platform).__qualname__ == "Plat"
    assert result.dist_name == "inproc-dist"
    assert result.dist == "inproc-dist 1.0"
    assert report.mode is SelectionMode.EXPLICIT
    assert [record.name for record, *_ in report.callbacks] == ["inproc"]

    result, report = run(SRT, {})
    assert result.dist_name == "inproc-dist"
    assert report.mode is SelectionMode.AUTO
    statuses = {record.name: status for record, status, _, _ in report.callbacks}
    assert statuses == {"inproc": CallbackStatus.ACTIVATED, "idle": CallbackStatus.DECLINED}
    frozen = report.freeze()
    assert frozen.ok
    text = frozen.format()
    assert "callback idle (idle-dist 1.0) -> None (hardware unavailable)" in text
    assert "selected inproc_dist.platform.Plat (inproc from inproc-dist)" in text


def test_non_callable_entry_point(site: Site) -> None:
    site.install(
        Dist(
            "const-dist",
            entry_points={SRT_PLATFORMS_GROUP: {"const": "const_pkg:VALUE"}},
            modules={"const_pkg/__init__.py": "VALUE = 'const_pkg:Plat'\n"},
        )
    )
    with pytest.raises(PlatformContractError, match="is a str, not an activation callback"):
        run(SRT, {})


def test_callback_naming_a_function_not_a_class(site: Site) -> None:
    dist = plugin("fn-dist", "fn", returns="'fn_dist:activate'")
    site.install(dist)
    with pytest.raises(PlatformContractError, match="'fn_dist:activate' is a function"):
        run(SRT, {})


def test_failed_report_keeps_callbacks_and_error(site: Site) -> None:
    site.install(plugin("boom-dist", "boom", body="raise KeyError('k')"))
    refresh()
    report = ReportBuilder(SRT)
    with pytest.raises(PlatformSelectionError) as info:
        select(SRT, report, environ={}, index=entry_point_index(), probe_context=no_probing)
    frozen = report.freeze(error=info.value)
    assert not frozen.ok
    assert frozen.platform_class is None
    assert frozen.callbacks[0].status is CallbackStatus.FAILED
    assert frozen.callbacks[0].error == "KeyError: 'k'"
    assert "FAILED: PlatformSelectionError:" in frozen.format()


def test_diffusion_override_is_case_insensitive() -> None:
    result, report = run(DIFFUSION, {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": " Cpu "})
    assert type(result.platform).__name__ == "CpuPlatform"
    assert report.mode is SelectionMode.OVERRIDE_BUILTIN


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", frozenset()),
        ("a", frozenset({"a"})),
        (" a , b,,", frozenset({"a", "b"})),
    ],
)
def test_parse_allowlist(value: str | None, expected: frozenset[str] | None) -> None:
    assert parse_allowlist(value) == expected


# -- the process-wide gate and reset ------------------------------------------------------


def test_resolve_reset_and_report(
    site: Site, clean_srt: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.install(plugin("gate-dist", "gatep"))
    refresh()
    monkeypatch.setenv("SGLANG_PLATFORM", "gatep")
    first = resolve_platform(SRT)
    assert resolve_platform(SRT) is first
    assert selected_platform_dist(SRT) == "gate-dist"
    report = selection_report(SRT, resolve=False)
    assert report is not None
    assert report.platform_entry_point == "gatep"
    assert report.first_stack

    reset_selection(SRT)
    assert selection_report(SRT, resolve=False) is None
    monkeypatch.setenv("SGLANG_PLATFORM", "missing")
    report = selection_report(SRT)  # the failure is in the report, not raised
    assert report is not None
    assert report.error is not None
    assert "SGLANG_PLATFORM='missing'" in report.error
    with pytest.raises(PlatformSelectionError):
        resolve_platform(SRT)


def test_benchmark_quick_mode_runs() -> None:
    """Smoke-runs the selection benchmark; timings are printed, never asserted."""
    proc = subprocess.run(
        [
            str(clean_environment().python),
            str(REPO_ROOT / "benchmarks" / "bench_selection.py"),
            "--quick",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "python -c pass" in proc.stdout
    assert "target:" in proc.stdout
