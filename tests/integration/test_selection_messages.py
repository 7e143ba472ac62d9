"""What selection tells the operator: the platform's repr, the allowlist, flags, names.

Each case runs in a fresh interpreter with real ``*.dist-info`` plugins
(:mod:`tests.integration.test_selection_support`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_plugins_support import general_plugin, run_loader
from tests.integration.test_selection_support import new_site, plugin, resolve

_REPR = "print('REPR', repr(platform))"


def _repr(out_stdout: str) -> str:
    lines = [line for line in out_stdout.splitlines() if line.startswith("REPR ")]
    assert len(lines) == 1, out_stdout
    return lines[0][len("REPR ") :]


# -- print(current_platform) ------------------------------------------------------------


def test_repr_names_the_class_device_entry_point_and_distribution(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("chosen-dist", "chosen"))
    out = resolve("srt", site, {"SGLANG_PLATFORM": "chosen"}, extra=_REPR)
    assert _repr(out.result.stdout) == (
        "<SRT platform chosen_dist.platform.Plat, device 'chosen', from entry point 'chosen' "
        "of distribution chosen-dist 1.0 (explicit: SGLANG_PLATFORM=chosen)>"
    )


def test_repr_of_a_builtin_fallback_says_why(tmp_path: Path) -> None:
    out = resolve("srt", new_site(tmp_path), {"SGLANG_USE_CPU_ENGINE": "1"}, extra=_REPR)
    assert _repr(out.result.stdout) == (
        "<SRT platform sglang.runtime.builtin.srt.CpuSRTPlatform, device 'cpu', built-in "
        "fallback: no plugin activated and SGLANG_USE_CPU_ENGINE=1>"
    )


def test_repr_of_a_diffusion_builtin_named_by_the_override(tmp_path: Path) -> None:
    env = {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "cpu"}
    out = resolve("diffusion", new_site(tmp_path), env, extra=_REPR)
    assert _repr(out.result.stdout) == (
        "<diffusion platform sglang.runtime.builtin.diffusion.CpuPlatform, device 'cpu', "
        "built-in: SGLANG_DIFFUSION_PLATFORM_OVERRIDE=cpu selects the built-in platform "
        "without probing>"
    )


def test_repr_of_an_auto_selected_diffusion_plugin(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("d-dist", "dee", runtime="diffusion"))
    out = resolve("diffusion", site, {}, extra=_REPR)
    assert _repr(out.result.stdout) == (
        "<diffusion platform d_dist.platform.Plat, device 'dee', from entry point 'dee' of "
        "distribution d-dist 1.0 (auto: 'dee' is the only platform plugin that activated)>"
    )


# -- SGLANG_PLUGINS that allows nothing ------------------------------------------------------


def _allowlist_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "SGLANG_PLUGINS=" in line]


@pytest.mark.parametrize("value", ["", ",,,"])
def test_an_empty_allowlist_warns_once_and_the_reason_mentions_it(
    tmp_path: Path, value: str
) -> None:
    site = new_site(
        tmp_path,
        plugin("a-dist", "alpha"),
        general_plugin("g-dist", "gee"),
    )
    out = resolve(
        "srt",
        site,
        {"SGLANG_PLUGINS": value, "SGLANG_USE_CPU_ENGINE": "1"},
        # the loader reads the same allowlist: still one warning in the process
        extra="from sglang.srt.plugins import load_plugins\nload_plugins()",
    )
    assert out.platform == "sglang.runtime.builtin.srt.CpuSRTPlatform"
    warnings = _allowlist_warnings(out.result.stderr)
    assert len(warnings) == 1, out.result.stderr
    (warning,) = warnings
    assert f"SGLANG_PLUGINS={value!r} is set but names no plugin" in warning
    assert "sglang.srt.plugins: gee" in warning
    assert "sglang.srt.platforms: alpha" in warning
    assert "disables every general plugin and, in SRT auto mode, every platform plugin" in warning
    assert "unset SGLANG_PLUGINS" in warning
    assert out.report["reason"] == (
        "fallback: no plugin activated (SGLANG_PLUGINS filtered out: alpha) "
        "and SGLANG_USE_CPU_ENGINE=1"
    )


def test_an_allowlist_naming_nothing_installed_warns_once(tmp_path: Path) -> None:
    site = new_site(tmp_path, general_plugin("g-dist", "gee"))
    out = run_loader(site, {"SGLANG_PLUGINS": "typo,other"})
    assert out.error is None
    assert out.states() == {"gee": "not allowed"}
    matching = [w for w in out.warnings if "SGLANG_PLUGINS=" in w]
    assert len(matching) == 1, out.warnings
    assert "SGLANG_PLUGINS='typo,other' names no installed plugin (other, typo)" in matching[0]
    assert "sglang.srt.plugins: gee" in matching[0]


def test_an_allowlist_naming_an_installed_plugin_does_not_warn(tmp_path: Path) -> None:
    site = new_site(tmp_path, general_plugin("g-dist", "gee"), general_plugin("h-dist", "aitch"))
    out = run_loader(site, {"SGLANG_PLUGINS": "gee"})
    assert out.states() == {"gee": "loaded", "aitch": "not allowed"}
    assert [w for w in out.warnings if "SGLANG_PLUGINS=" in w] == []


# -- boolean variables -----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["maybe", "2", "enabled"])
def test_a_flag_with_an_unrecognised_value_is_an_error(tmp_path: Path, value: str) -> None:
    out = resolve("srt", new_site(tmp_path), {"SGLANG_USE_CPU_ENGINE": value})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert f"SGLANG_USE_CPU_ENGINE={value!r} is not a boolean" in out.error
    assert "1, true, yes, on" in out.error
    assert "0, false, no, off" in out.error


@pytest.mark.parametrize(("value", "cpu"), [("TRUE", True), (" on ", True), ("Off", False)])
def test_flag_spellings_are_case_and_space_insensitive(
    tmp_path: Path, value: str, cpu: bool
) -> None:
    out = resolve("srt", new_site(tmp_path), {"SGLANG_USE_CPU_ENGINE": value})
    assert out.error is None
    assert (out.platform == "sglang.runtime.builtin.srt.CpuSRTPlatform") is cpu


# -- diffusion: reserved built-in names, identity attributes ---------------------------------


@pytest.mark.parametrize("name", ["cuda", "XPU", "Musa"])
def test_a_diffusion_plugin_named_like_a_builtin_is_rejected_before_import(
    tmp_path: Path, name: str
) -> None:
    site = new_site(tmp_path, plugin("clash-dist", name, runtime="diffusion"))
    out = resolve("diffusion", site, {})
    assert out.error_type == "PlatformSelectionError"
    assert out.error is not None
    assert f"Diffusion platform plugin {name!r} (distribution clash-dist 1.0)" in out.error
    assert "reserved for the built-in platforms" in out.error
    assert "cpu, cuda, mps, musa, npu, rocm, xpu" in out.error
    assert "pip uninstall clash-dist" in out.error
    assert out.imported() == []


def test_a_reserved_diffusion_name_is_rejected_when_named_too(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("clash-dist", "xpu", runtime="diffusion"))
    out = resolve("diffusion", site, {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "xpu"})
    assert out.error is not None
    assert "reserved for the built-in platforms" in out.error
    assert out.imported() == []


def test_srt_does_not_reserve_builtin_names(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("x-dist", "xpu"))
    out = resolve("srt", site, {"SGLANG_PLATFORM": "xpu"})
    assert out.error is None
    assert out.platform == "x_dist.platform.Plat"


@pytest.mark.parametrize("attribute", ["device_name", "device_type"])
def test_a_diffusion_platform_without_identity_is_a_contract_error(
    tmp_path: Path, attribute: str
) -> None:
    source = f"""
        from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum

        class Plat(Platform):
            _enum = PlatformEnum.OOT
            device_name = "anon"
            {attribute} = ""
    """
    site = new_site(
        tmp_path, plugin("anon-dist", "anon", runtime="diffusion", platform_source=source)
    )
    out = resolve("diffusion", site, {})
    assert out.error_type == "PlatformContractError"
    assert out.error is not None
    assert f"anon_dist.platform.Plat has an empty {attribute}" in out.error
    assert "pip uninstall anon-dist" in out.error
    assert out.platform is None


def test_the_auto_only_xpu_message_has_only_the_fix_that_applies(tmp_path: Path) -> None:
    out = resolve("diffusion", new_site(tmp_path), {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "xpu"})
    assert out.error is not None
    assert "detected automatically and cannot be selected by name" in out.error
    assert "pip install" not in out.error
    assert out.error.splitlines()[-1] == (
        "Fix: unset SGLANG_DIFFUSION_PLATFORM_OVERRIDE so that XPU is detected automatically, "
        "or set it to one of the names above."
    )


# -- general plugins: one name, two distributions ------------------------------------------


@pytest.mark.parametrize("runtime", ["srt", "diffusion"])
def test_two_general_plugins_with_one_name_are_an_error_before_import(
    tmp_path: Path, runtime: str
) -> None:
    site = new_site(
        tmp_path,
        general_plugin("first-dist", "same", runtime=runtime),  # type: ignore[arg-type]
        general_plugin("second-dist", "same", runtime=runtime),  # type: ignore[arg-type]
        general_plugin("other-dist", "other", runtime=runtime),  # type: ignore[arg-type]
    )
    out = run_loader(site, runtime=runtime)  # type: ignore[arg-type]
    assert out.error_type == "PluginConflictError"
    assert out.error is not None
    assert "general plugin name 'same' is declared by more than one distribution" in out.error
    assert "first-dist 1.0" in out.error
    assert "second-dist 1.0" in out.error
    assert "pip uninstall" in out.error
    assert out.imported() == []
