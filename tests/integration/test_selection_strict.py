"""The rules stricter than upstream, in both runtimes, in fresh interpreters."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_selection_support import (
    SELECTOR,
    Runtime,
    new_site,
    plugin,
    resolve,
)

RUNTIMES: list[Runtime] = ["srt", "diffusion"]

_SRT_BASE = "from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform as Base\n"
_DIFF_BASE = "from sglang.multimodal_gen.runtime.platforms import Platform as Base, PlatformEnum\n"
BASE_IMPORT = {"srt": _SRT_BASE, "diffusion": _DIFF_BASE}
OTHER_BASE_IMPORT = {"srt": _DIFF_BASE, "diffusion": _SRT_BASE}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_duplicate_names_rejected_before_any_import(tmp_path: Path, runtime: Runtime) -> None:
    site = new_site(
        tmp_path,
        plugin("first-dist", "dup", runtime=runtime),
        plugin("second-dist", "dup", runtime=runtime, version="2.0"),
        plugin("third-dist", "unique", runtime=runtime),
    )
    out = resolve(runtime, site, {})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "platform plugin name 'dup' is declared by more than one distribution" in out.error
    assert "first-dist 1.0 (first_dist:activate)" in out.error
    assert "second-dist 2.0 (second_dist:activate)" in out.error
    assert "pip uninstall" in out.error
    assert out.imported() == []


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_explicit_selection_validates_only_the_selected_name(
    tmp_path: Path, runtime: Runtime
) -> None:
    site = new_site(
        tmp_path,
        plugin("first-dist", "dup", runtime=runtime),
        plugin("second-dist", "dup", runtime=runtime),
        plugin("chosen-dist", "chosen", runtime=runtime),
    )
    ok = resolve(runtime, site, {SELECTOR[runtime]: "chosen"})
    assert ok.platform == "chosen_dist.platform.Plat"
    bad = resolve(runtime, site, {SELECTOR[runtime]: "dup"})
    assert bad.error is not None
    assert "'dup' is declared by more than one distribution" in bad.error
    assert bad.imported() == []


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_raising_callback_aborts_with_name_dist_and_traceback(
    tmp_path: Path, runtime: Runtime
) -> None:
    site = new_site(
        tmp_path,
        plugin(
            "broken-dist", "broken", runtime=runtime, body="raise RuntimeError('driver exploded')"
        ),
    )
    out = resolve(runtime, site, {"SGLANG_USE_CPU_ENGINE": "1"})
    assert out.error_type == "PlatformSelectionError"
    assert out.platform is None  # no fallback to a built-in
    assert out.error is not None
    assert "platform plugin 'broken' (distribution broken-dist 1.0) failed while running" in (
        out.error
    )
    assert "RuntimeError: driver exploded" in out.error
    assert "Traceback (most recent call last)" in out.error
    assert "broken_dist/__init__.py" in out.error
    assert out.report["callbacks"][0]["status"] == "failed"  # type: ignore[index]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_callback_module_failing_to_import_aborts(tmp_path: Path, runtime: Runtime) -> None:
    dist = plugin("noimport-dist", "noimport", runtime=runtime)
    dist.modules = {**dist.modules, "noimport_dist/__init__.py": "import not_a_real_module_xyz\n"}
    out = resolve(runtime, new_site(tmp_path, dist), {SELECTOR[runtime]: "noimport"})
    assert out.error is not None
    assert "failed while importing its activation callback noimport_dist:activate" in out.error
    assert "ModuleNotFoundError: No module named 'not_a_real_module_xyz'" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("returns", ["42", "''", "'   '", "['pkg.Cls']"])
def test_callback_result_must_be_non_empty_str_or_none(
    tmp_path: Path, runtime: Runtime, returns: str
) -> None:
    site = new_site(tmp_path, plugin("odd-dist", "odd", runtime=runtime, returns=returns))
    out = resolve(runtime, site, {})
    assert out.error_type == "PlatformContractError"
    assert out.is_type_error
    assert out.error is not None
    assert f"activation callback odd_dist:activate returned {eval(returns)!r}" in out.error
    assert "must return a non-empty str" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize(
    "qualname",
    [
        "q_dist.platform:Plat",
        "q_dist.platform.Plat",
        "q_dist.platform:Outer.Inner",
        "q_dist.platform.Outer.Inner",
    ],
)
def test_both_qualname_spellings_resolve(tmp_path: Path, runtime: Runtime, qualname: str) -> None:
    source = BASE_IMPORT[runtime] + (
        "class Plat(Base):\n    _enum = PlatformEnum.OOT\n\n"
        "class Outer:\n    class Inner(Base):\n        _enum = PlatformEnum.OOT\n"
    )
    dist = plugin("q-dist", "q", runtime=runtime, returns=repr(qualname), platform_source=source)
    out = resolve(runtime, new_site(tmp_path, dist), {SELECTOR[runtime]: "q"})
    assert out.error is None, out.error
    expected = "Plat" if qualname.endswith("Plat") else "Outer.Inner"
    assert out.platform == f"q_dist.platform.{expected}"
    assert out.dist == "q-dist"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_class_must_subclass_the_runtimes_base(tmp_path: Path, runtime: Runtime) -> None:
    source = OTHER_BASE_IMPORT[runtime] + "class Plat(Base):\n    _enum = PlatformEnum.OOT\n"
    dist = plugin("wrong-dist", "wrong", runtime=runtime, platform_source=source)
    out = resolve(runtime, new_site(tmp_path, dist), {SELECTOR[runtime]: "wrong"})
    assert out.error_type == "PlatformContractError"
    assert out.error is not None
    base = {
        "srt": "sglang.srt.platforms.interface.SRTPlatform",
        "diffusion": "sglang.multimodal_gen.runtime.platforms.Platform",
    }[runtime]
    assert f"platform class wrong_dist.platform.Plat does not subclass {base}" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("enum_line", ["    _enum = PlatformEnum.CUDA\n", "    pass\n"])
def test_plugin_class_must_declare_oot(tmp_path: Path, runtime: Runtime, enum_line: str) -> None:
    source = BASE_IMPORT[runtime] + "class Plat(Base):\n" + enum_line
    dist = plugin("enum-dist", "enumx", runtime=runtime, platform_source=source)
    out = resolve(runtime, new_site(tmp_path, dist), {})
    assert out.error_type == "PlatformContractError"
    assert out.error is not None
    assert "a platform plugin must declare _enum = PlatformEnum.OOT" in out.error


def test_diffusion_class_with_srt_oot_enum_is_rejected(tmp_path: Path) -> None:
    source = (
        _DIFF_BASE
        + "from sglang.srt.platforms.device_mixin import PlatformEnum as SRTEnum\n"
        + "class Plat(Base):\n    _enum = SRTEnum.OOT\n"
    )
    dist = plugin("mixed-dist", "mixed", runtime="diffusion", platform_source=source)
    out = resolve("diffusion", new_site(tmp_path, dist), {})
    assert out.error is not None
    assert "declares _enum = sglang.sdk.device.PlatformEnum.OOT (the OOT member of" in out.error
    assert "sglang.multimodal_gen.runtime.platforms.PlatformEnum" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_class_must_be_constructible_without_arguments(tmp_path: Path, runtime: Runtime) -> None:
    source = BASE_IMPORT[runtime] + (
        "class Plat(Base):\n    _enum = PlatformEnum.OOT\n"
        "    def __init__(self, device_id):\n        self.device_id = device_id\n"
    )
    dist = plugin("args-dist", "args", runtime=runtime, platform_source=source)
    out = resolve(runtime, new_site(tmp_path, dist), {SELECTOR[runtime]: "args"})
    assert out.error_type == "PlatformContractError"
    assert out.error is not None
    assert "must be constructible without arguments" in out.error
    assert "device_id" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_constructor_failure_aborts_with_traceback(tmp_path: Path, runtime: Runtime) -> None:
    source = BASE_IMPORT[runtime] + (
        "class Plat(Base):\n    _enum = PlatformEnum.OOT\n"
        "    def __init__(self):\n        raise OSError('no device node')\n"
    )
    dist = plugin("ctor-dist", "ctor", runtime=runtime, platform_source=source)
    out = resolve(runtime, new_site(tmp_path, dist), {})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "constructing platform class ctor_dist.platform.Plat raised OSError" in out.error
    assert "Traceback (most recent call last)" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_unimportable_class_names_plugin_and_dist(tmp_path: Path, runtime: Runtime) -> None:
    dist = plugin("ghost-dist", "ghost", runtime=runtime, returns="'ghost_dist.nowhere:Plat'")
    out = resolve(runtime, new_site(tmp_path, dist), {})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert "'ghost' (distribution ghost-dist 1.0)" in out.error
    assert "cannot import platform class 'ghost_dist.nowhere:Plat'" in out.error
    assert "pip uninstall ghost-dist" in out.error


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_selected_distribution_is_recorded_in_both_modes(tmp_path: Path, runtime: Runtime) -> None:
    site = new_site(tmp_path, plugin("Vendor.Dist", "vendor", runtime=runtime, package="vendor"))
    auto = resolve(runtime, site, {})
    explicit = resolve(runtime, site, {SELECTOR[runtime]: "vendor"})
    assert auto.dist == explicit.dist == "Vendor.Dist"
    assert auto.report["platform_dist"] == explicit.report["platform_dist"] == "Vendor.Dist"
