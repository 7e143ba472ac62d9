"""Plugin loading with real distributions, in a fresh interpreter per case.

Covers source tracking, the ``SGLANG_PLUGINS`` allowlist, the exclusion of
unselected platform distributions, the failure policy both ways, and the
diffusion split between registration and application.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_plugins_support import (
    Hook,
    general_plugin,
    new_site,
    platform_dist,
    run_loader,
)

# -- loading and source tracking ------------------------------------------------------


def test_load_plugins_registers_with_sources_and_applies(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        general_plugin("obs-dist", "obs", hooks=[Hook(add=10, at_import=True), Hook(add=100)]),
    )
    out = run_loader(site)
    assert out.error is None, out.result.stderr
    assert out.add == 113  # both hooks applied to tests.hooktargets.basic.add
    # the source was set while the module was imported and while the callback ran
    assert out.sources("IMPORTED") == {"obs_dist": "obs/obs-dist/1.0"}
    assert out.sources("CALLED") == {"obs": "obs/obs-dist/1.0"}
    assert [(h["plugin"], h["dist"], h["version"], h["status"]) for h in out.hooks()] == [
        ("obs", "obs-dist", "1.0", "applied"),
        ("obs", "obs-dist", "1.0", "applied"),
    ]
    assert out.states() == {"obs": "loaded"}
    assert out.warnings == []


def test_the_source_is_unset_outside_plugin_loading(tmp_path: Path) -> None:
    site = new_site(tmp_path, general_plugin("obs-dist", "obs"))
    out = run_loader(
        site,
        extra="""
        from sglang.srt.plugins import _current_plugin_source
        print("AFTER", _current_plugin_source.get())
        """,
    )
    assert "AFTER None" in out.result.stdout


def test_no_plugins_installed_is_a_no_op(tmp_path: Path) -> None:
    out = run_loader(new_site(tmp_path))
    assert out.error is None
    assert out.add == 3
    assert out.hooks() == []


# -- SGLANG_PLUGINS ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowlist", "loaded"),
    [
        (None, ["a", "b"]),
        ("a", ["a"]),
        (" b , ", ["b"]),
        ("a,b,c", ["a", "b"]),
        ("", []),
        (",", []),
    ],
)
def test_allowlist(tmp_path: Path, allowlist: str | None, loaded: list[str]) -> None:
    site = new_site(
        tmp_path,
        general_plugin("a-dist", "a", hooks=[Hook(add=10)]),
        general_plugin("b-dist", "b", hooks=[Hook(add=100)]),
    )
    env = {} if allowlist is None else {"SGLANG_PLUGINS": allowlist}
    out = run_loader(site, env)
    assert out.error is None, out.error
    assert out.called() == loaded
    assert out.imported() == [f"{name}_dist" for name in loaded]  # others never imported
    assert out.add == 3 + (10 if "a" in loaded else 0) + (100 if "b" in loaded else 0)
    assert out.states() == {n: "loaded" if n in loaded else "not allowed" for n in ("a", "b")}


# -- exclusion of unselected platform distributions -------------------------------------


def test_explicit_platform_excludes_other_platform_packages(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, plugin="alpha_hooks",
                      hooks=[Hook(add=10)]),
        platform_dist("beta-platform", {"beta": True}, plugin="beta_hooks", hooks=[Hook(add=100)]),
        general_plugin("obs-dist", "obs", hooks=[Hook(add=1000)]),
    )  # fmt: skip
    out = run_loader(site, {"SGLANG_PLATFORM": "beta"})
    assert out.error is None, out.error
    assert out.states() == {"alpha_hooks": "excluded", "beta_hooks": "loaded", "obs": "loaded"}
    assert "alpha_platform_hooks" not in out.imported()  # skipped before import
    assert out.add == 1103
    required = {o["name"]: o["required"] for o in out.data["outcomes"]}
    assert required == {"alpha_hooks": False, "beta_hooks": True, "obs": False}


def test_auto_selected_platform_excludes_the_others(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, plugin="alpha_hooks",
                      hooks=[Hook(add=10)]),
        platform_dist("beta-platform", {"beta": False}, plugin="beta_hooks", hooks=[Hook(add=100)]),
    )  # fmt: skip
    out = run_loader(site)
    assert out.error is None, out.error
    assert out.states() == {"alpha_hooks": "loaded", "beta_hooks": "excluded"}
    assert out.add == 13


def test_builtin_platform_excludes_every_platform_package(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("beta-platform", {"beta": False}, plugin="beta_hooks", hooks=[Hook(add=100)]),
        general_plugin("obs-dist", "obs", hooks=[Hook(add=1000)]),
    )  # fmt: skip
    out = run_loader(site, {"SGLANG_USE_CPU_ENGINE": "1"})
    assert out.error is None, out.error
    assert out.states() == {"beta_hooks": "excluded", "obs": "loaded"}
    assert out.add == 1003


def test_selected_distribution_with_several_platforms_is_never_excluded(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("multi-platform", {"m1": True, "m2": True}, plugin="multi_hooks",
                      hooks=[Hook(add=10)]),
        platform_dist("other-platform", {"o": True}, plugin="other_hooks", hooks=[Hook(add=100)]),
    )  # fmt: skip
    out = run_loader(site, {"SGLANG_PLATFORM": "m2"})
    assert out.error is None, out.error
    assert out.states() == {"multi_hooks": "loaded", "other_hooks": "excluded"}
    assert out.add == 13


def test_allowlist_can_disable_the_selected_platforms_plugins(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, plugin="alpha_hooks", fail_import=True),
    )
    out = run_loader(site, {"SGLANG_PLATFORM": "alpha", "SGLANG_PLUGINS": ""})
    assert out.error is None, out.error
    assert out.states() == {"alpha_hooks": "not allowed"}


# -- failure policy: the selected platform's distribution aborts ------------------------


@pytest.mark.parametrize(
    ("fail_import", "what"),
    [
        (True, "failed in importing alpha_platform_hooks:register_alpha"),
        (False, "failed in its callback alpha_platform_hooks:register_alpha"),
    ],
)
def test_required_plugin_load_or_callback_failure_aborts(
    tmp_path: Path, fail_import: bool, what: str
) -> None:
    site = new_site(
        tmp_path,
        platform_dist(
            "alpha-platform",
            {"alpha": True},
            plugin="alpha",
            fail_import=fail_import,
            fail_callback=not fail_import,
        ),
        general_plugin("obs-dist", "obs"),
    )
    out = run_loader(site, {"SGLANG_PLATFORM": "alpha"})
    assert out.error_type == "PluginLoadError"
    message = out.error
    assert message is not None
    assert "general plugin 'alpha' of distribution alpha-platform 1.0" in message
    assert "the selected platform's distribution" in message
    assert what in message
    assert "SGLANG_PLUGINS" in message
    assert out.add == 3  # nothing applied
    assert out.warnings == []


def test_required_hook_apply_failure_aborts_and_rolls_back(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist(
            "alpha-platform",
            {"alpha": True},
            plugin="alpha",
            hooks=[Hook(add=10), Hook(target="tests.hooktargets.basic.no_such_function")],
        ),
    )
    out = run_loader(
        site,
        {"SGLANG_PLATFORM": "alpha"},
        extra="""
        from sglang.srt.plugins import load_plugins
        try:
            load_plugins()
        except Exception as again:
            print("SAME", again is plugins.application.error, flush=True)
        """,
    )
    assert out.error_type == "HookApplyError"
    message = out.error
    assert message is not None
    assert "plugin 'alpha' (distribution alpha-platform 1.0)" in message
    assert "'tests.hooktargets.basic.no_such_function'" in message
    assert "has no attribute 'no_such_function'" in message
    assert "rolled back" in message
    assert out.add == 3  # the plugin's other hook was rolled back too
    assert "SAME True" in out.result.stdout  # the failure is remembered


# -- failure policy: other plugins are best-effort --------------------------------------


@pytest.mark.parametrize(
    ("failure", "what"),
    [
        ("import", "importing broken_dist:register_broken failed"),
        ("callback", "its callback broken_dist:register_broken failed"),
        ("apply", "'tests.hooktargets.basic:nope'"),
    ],
)
def test_best_effort_plugin_failure_warns_once(tmp_path: Path, failure: str, what: str) -> None:
    hooks = [Hook(add=10)]
    if failure == "apply":
        hooks.append(Hook(target="tests.hooktargets.basic:nope"))
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, plugin="alpha", hooks=[Hook(add=100)]),
        general_plugin(
            "broken-dist",
            "broken",
            hooks=hooks,
            fail_import=failure == "import",
            fail_callback=failure == "callback",
        ),
        general_plugin("fine-dist", "fine", hooks=[Hook(add=1000)]),
    )
    out = run_loader(
        site,
        {"SGLANG_PLATFORM": "alpha"},
        extra="""
        from sglang.srt.plugins import load_plugins
        load_plugins()
        """,
    )
    assert out.error is None, out.error
    [warning] = out.warnings
    assert "'broken'" in warning
    assert "broken-dist 1.0" in warning
    assert what in warning
    assert "best-effort" in warning
    assert "SGLANG_PLUGINS" in warning
    if failure != "apply":  # a plugin that failed to load or in its callback contributes nothing
        assert out.states()["broken"] == "failed"
        assert out.add == 1103
    else:  # a hook that failed to apply is skipped, the plugin's other hooks stay
        assert out.add == 1113
    assert out.states()["fine"] == "loaded"


# -- diffusion: registration and application are separate --------------------------------


def test_diffusion_registration_does_not_import_targets(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        general_plugin(
            "diff-obs",
            "obs",
            runtime="diffusion",
            hooks=[Hook(target="tests.hooktargets.lazy.compute", add=10), Hook(add=100)],
        ),
    )
    out = run_loader(
        site,
        runtime="diffusion",
        steps="""
        import sys
        api.load_plugins()
        print("AFTER_LOAD", "tests.hooktargets.lazy" in sys.modules, flush=True)
        api.apply_plugin_hooks()
        import tests.hooktargets.lazy as lazy
        print("AFTER_APPLY", lazy.compute(1), flush=True)
        """,
    )
    assert out.error is None, out.error
    assert "AFTER_LOAD False" in out.result.stdout
    assert "AFTER_APPLY 12" in out.result.stdout
    assert out.add == 103
    assert {h["status"] for h in out.hooks()} == {"applied"}
    assert {h["dist"] for h in out.hooks()} == {"diff-obs"}


def test_diffusion_apply_registers_first_and_srt_never_sees_its_hooks(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        general_plugin("diff-obs", "obs", runtime="diffusion", hooks=[Hook(add=10)]),
        general_plugin("srt-obs", "srt_obs", runtime="srt", hooks=[Hook(add=100)]),
    )
    out = run_loader(
        site,
        runtime="diffusion",
        steps="api.apply_plugin_hooks()",
        extra="""
        from sglang.srt.plugins.hook_registry import HookRegistry as srt_registry
        print("SRT_HOOKS", len(srt_registry.hooks()), flush=True)
        """,
    )
    assert out.error is None, out.error
    assert out.called() == ["obs"]
    assert out.add == 13
    assert "SRT_HOOKS 0" in out.result.stdout


def test_diffusion_excludes_unselected_platform_packages(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("dalpha", {"dalpha": True}, runtime="diffusion", plugin="dalpha_hooks",
                      hooks=[Hook(add=10)]),
        platform_dist("dbeta", {"dbeta": True}, runtime="diffusion", plugin="dbeta_hooks",
                      hooks=[Hook(add=100)]),
    )  # fmt: skip
    out = run_loader(site, {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "dbeta"}, runtime="diffusion")
    assert out.error is None, out.error
    assert out.states() == {"dalpha_hooks": "excluded", "dbeta_hooks": "loaded"}
    assert out.add == 103


def test_diffusion_required_plugin_failure_aborts(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        platform_dist("dalpha", {"dalpha": True}, runtime="diffusion", plugin="dalpha_hooks",
                      fail_callback=True),
    )  # fmt: skip
    out = run_loader(site, {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "dalpha"}, runtime="diffusion")
    assert out.error_type == "PluginLoadError"
    assert out.error is not None
    assert "SGLang Diffusion startup aborted" in out.error
    assert "dalpha 1.0" in out.error
