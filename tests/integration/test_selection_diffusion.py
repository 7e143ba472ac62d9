"""Every row of the diffusion selection order, in a fresh interpreter per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_selection_support import new_site, plugin, resolve

OVERRIDE = "SGLANG_DIFFUSION_PLATFORM_OVERRIDE"

BUILTIN_CLASSES = {
    "cpu": "CpuPlatform",
    "cuda": "CudaPlatform",
    "rocm": "RocmPlatform",
    "mps": "MpsPlatform",
    "npu": "NpuPlatform",
    "musa": "MusaPlatform",
}


@pytest.mark.parametrize("alias", sorted(BUILTIN_CLASSES))
def test_override_alias_selects_builtin_without_probing(tmp_path: Path, alias: str) -> None:
    # an installed plugin that would activate is not even imported
    site = new_site(tmp_path, plugin("eager-dist", "eager", runtime="diffusion"))
    out = resolve(
        "diffusion",
        site,
        {OVERRIDE: alias.upper() if alias == "cuda" else alias},
        extra="print('TORCH', 'torch' in sys.modules)",
    )
    assert out.error is None, out.error
    assert out.platform == f"sglang.runtime.builtin.diffusion.{BUILTIN_CLASSES[alias]}"
    assert out.dist is None
    assert out.report["mode"] == "override-builtin"
    assert out.report["probes"] == []
    assert out.imported() == []
    assert "TORCH False" in out.result.stdout  # no probing, so torch was never imported


def test_xpu_is_auto_only(tmp_path: Path) -> None:
    out = resolve("diffusion", new_site(tmp_path), {OVERRIDE: "xpu"})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "detected automatically and cannot be selected by name" in out.error
    assert "Built-in platforms selectable by name: cpu, cuda, mps, musa, npu, rocm." in out.error


def test_other_name_loads_only_that_entry_point(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        plugin("vendor-dist", "vendor", runtime="diffusion"),
        plugin("other-dist", "other", runtime="diffusion"),
    )
    out = resolve("diffusion", site, {OVERRIDE: "vendor"})
    assert out.platform == "vendor_dist.platform.Plat"
    assert out.dist == "vendor-dist"
    assert out.imported() == ["vendor_dist"]
    assert out.report["mode"] == "explicit"


def test_unknown_name_is_an_error(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("vendor-dist", "vendor", runtime="diffusion"))
    out = resolve("diffusion", site, {OVERRIDE: "nope"})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "names no installed SGLang Diffusion platform plugin and no built-in" in out.error
    assert "'sglang.multimodal_gen.platforms'): vendor." in out.error


def test_named_callback_returning_none_is_an_error(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("vendor-dist", "vendor", runtime="diffusion", returns=None))
    out = resolve("diffusion", site, {OVERRIDE: "vendor"})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "reports that its hardware is unavailable" in out.error


def test_auto_zero_activated_detects_builtin_cpu(tmp_path: Path) -> None:
    import torch

    site = new_site(tmp_path, plugin("off-dist", "off", runtime="diffusion", returns=None))
    out = resolve("diffusion", site, {})
    assert out.called() == ["off"]
    families = [p["family"] for p in out.report["probes"]]  # type: ignore[attr-defined]
    if torch.cuda.is_available():  # pragma: no cover - a GPU machine
        assert out.platform is not None
        assert out.platform.endswith(("CudaPlatform", "RocmPlatform"))
    else:
        assert out.platform == "sglang.runtime.builtin.diffusion.CpuPlatform"
        assert families == ["mps", "xpu", "rocm", "cuda", "npu", "musa", "cpu"]
        assert out.report["reason"] == "fallback: no plugin activated and CPU is available"


def test_auto_one_activated_is_used(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        plugin("on-dist", "on", runtime="diffusion"),
        plugin("off-dist", "off", runtime="diffusion", returns=None),
    )
    out = resolve("diffusion", site, {})
    assert out.platform == "on_dist.platform.Plat"
    assert out.dist == "on-dist"
    assert sorted(out.called()) == ["off", "on"]


def test_auto_many_activated_names_the_override_variable(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        plugin("a-dist", "a", runtime="diffusion"),
        plugin("b-dist", "b", runtime="diffusion"),
    )
    out = resolve("diffusion", site, {})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert f"set {OVERRIDE} to one of: a, b" in out.error


def test_sglang_plugins_does_not_filter_diffusion_discovery(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("on-dist", "on", runtime="diffusion"))
    out = resolve("diffusion", site, {"SGLANG_PLUGINS": "something-else"})
    assert out.platform == "on_dist.platform.Plat"


def test_srt_and_diffusion_select_independently(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("srt-only", "srtonly"))
    out = resolve(
        "diffusion",
        site,
        {OVERRIDE: "cpu", "SGLANG_PLATFORM": "srtonly"},
        extra="""
            from sglang.srt.platforms import current_platform as srt
            print("SRT", type(srt).__qualname__)
        """,
    )
    assert out.platform == "sglang.runtime.builtin.diffusion.CpuPlatform"
    assert "SRT Plat" in out.result.stdout
