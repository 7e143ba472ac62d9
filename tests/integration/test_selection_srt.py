"""Every row of the SRT selection diagram, in a fresh interpreter per case.

Plugins are real ``*.dist-info`` distributions; each test states the exact
environment (``run_python`` strips every other ``SGLANG_*`` variable).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_selection_support import new_site, plugin, resolve

# -- SGLANG_PLATFORM set: explicit selection ----------------------------------------


def test_explicit_name_not_found_lists_installed_names(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("alpha-dist", "alpha"), plugin("beta-dist", "beta"))
    out = resolve("srt", site, {"SGLANG_PLATFORM": "gamma"})
    assert out.error_type == "PlatformSelectionError"
    assert out.is_runtime_error
    assert out.error is not None
    assert "SGLANG_PLATFORM='gamma' names no installed SRT platform plugin" in out.error
    assert "alpha, beta" in out.error
    assert "pip install" in out.error
    assert out.imported() == []  # nothing was imported to find out


def test_explicit_loads_only_the_named_plugin(tmp_path: Path) -> None:
    # the sibling's module would raise on import: it must never be imported
    sibling = plugin("sibling-dist", "sibling")
    sibling.modules = {
        **sibling.modules,
        "sibling_dist/__init__.py": (
            "print('IMPORTED sibling_dist', flush=True)\nraise SystemExit(3)\n"
        ),
    }
    site = new_site(tmp_path, plugin("chosen-dist", "chosen"), sibling)
    out = resolve(
        "srt",
        site,
        {"SGLANG_PLATFORM": "chosen", "SGLANG_PLUGINS": "sibling"},  # allowlist is ignored
        extra="print('SIBLING_LOADED', 'sibling_dist' in sys.modules)",
    )
    assert out.error is None, out.error
    assert out.platform == "chosen_dist.platform.Plat"
    assert out.dist == "chosen-dist"
    assert out.imported() == ["chosen_dist"]
    assert out.called() == ["chosen"]
    assert "SIBLING_LOADED False" in out.result.stdout
    assert out.report["mode"] == "explicit"
    assert out.report["platform_entry_point"] == "chosen"


def test_explicit_callback_returning_none_is_hardware_unavailable(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("gone-dist", "gone", returns=None))
    out = resolve("srt", site, {"SGLANG_PLATFORM": "gone", "SGLANG_USE_CPU_ENGINE": "1"})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "reports that its hardware is unavailable" in out.error
    assert "gone-dist 1.0" in out.error
    assert "unset SGLANG_PLATFORM" in out.error
    assert out.platform is None  # no fallback, not even with SGLANG_USE_CPU_ENGINE


def test_explicit_name_is_stripped(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("spaced-dist", "spaced"))
    out = resolve("srt", site, {"SGLANG_PLATFORM": "  spaced "})
    assert out.platform == "spaced_dist.platform.Plat"


def test_empty_selector_means_auto(tmp_path: Path) -> None:
    site = new_site(tmp_path)
    out = resolve("srt", site, {"SGLANG_PLATFORM": "", "SGLANG_USE_CPU_ENGINE": "1"})
    assert out.report["mode"] == "auto"
    assert out.platform == "sglang.runtime.builtin.srt.CpuSRTPlatform"


# -- SGLANG_PLATFORM unset: auto discovery --------------------------------------------


def test_auto_zero_activated_with_cpu_engine_selects_cpu_without_torch(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("off-dist", "off", returns=None))
    out = resolve(
        "srt",
        site,
        {"SGLANG_USE_CPU_ENGINE": "1"},
        extra="print('TORCH', 'torch' in sys.modules)",
    )
    assert out.platform == "sglang.runtime.builtin.srt.CpuSRTPlatform"
    assert out.dist is None
    assert out.called() == ["off"]
    assert out.report["reason"] == "fallback: no plugin activated and SGLANG_USE_CPU_ENGINE=1"
    assert out.report["probes"] == []
    assert "TORCH False" in out.result.stdout


@pytest.mark.parametrize("flag", ["0", "", "no"])
def test_auto_cpu_engine_off_probes_hardware(tmp_path: Path, flag: str) -> None:
    import torch

    out = resolve("srt", new_site(tmp_path), {"SGLANG_USE_CPU_ENGINE": flag})
    if torch.cuda.is_available():  # pragma: no cover - a GPU machine
        assert out.platform is not None
        assert out.platform.endswith(("CudaSRTPlatform", "RocmSRTPlatform"))
    else:
        # no CUDA, ROCm or XPU here: the base SRTPlatform
        assert out.platform == "sglang.sdk.srt.SRTPlatform"
        reason = "fallback: no plugin activated and none of CUDA, ROCm, XPU is available"
        assert out.report["reason"] == reason
        assert [p["family"] for p in out.report["probes"]] == ["cuda", "rocm", "xpu"]  # type: ignore[attr-defined]


def test_auto_one_activated_is_used_and_every_callback_runs(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        plugin("a-dist", "a", returns=None),
        plugin("b-dist", "b"),
        plugin("c-dist", "c", returns=None),
    )
    out = resolve("srt", site, {})
    assert out.platform == "b_dist.platform.Plat"
    assert out.dist == "b-dist"
    assert sorted(out.called()) == ["a", "b", "c"]
    assert out.report["mode"] == "auto"
    statuses = {c["name"]: c["status"] for c in out.report["callbacks"]}  # type: ignore[attr-defined]
    assert statuses == {"a": "declined", "b": "activated", "c": "declined"}


def test_auto_many_activated_is_an_error_naming_them(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("a-dist", "a"), plugin("b-dist", "b"))
    out = resolve("srt", site, {"SGLANG_USE_CPU_ENGINE": "1"})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "More than one SRT platform plugin activated" in out.error
    assert "'a' (distribution a-dist 1.0)" in out.error
    assert "'b' (distribution b-dist 1.0)" in out.error
    assert "set SGLANG_PLATFORM to one of: a, b" in out.error


def test_auto_discovery_is_filtered_by_sglang_plugins(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("a-dist", "a"), plugin("b-dist", "b"))
    out = resolve("srt", site, {"SGLANG_PLUGINS": " b ,other"})
    assert out.platform == "b_dist.platform.Plat"
    assert out.imported() == ["b_dist"]  # 'a' was filtered out before import
    assert out.report["filtered_out"] == ["a"]
    assert out.report["allowlist"] == ["b", "other"]


def test_empty_sglang_plugins_allows_no_platform_plugin(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("a-dist", "a"))
    out = resolve("srt", site, {"SGLANG_PLUGINS": "", "SGLANG_USE_CPU_ENGINE": "1"})
    assert out.platform == "sglang.runtime.builtin.srt.CpuSRTPlatform"
    assert out.imported() == []
