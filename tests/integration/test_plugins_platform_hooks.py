"""Hooks that platform modules register at import time, in both runtimes.

Platform selection imports every platform plugin's module in auto mode
(and the chosen one's in explicit mode), so a module-scope
``@plugin_hook`` there runs during selection. Such a hook belongs to its
platform entry point: the selected platform's hooks are applied (and
required), every other platform distribution's hooks are disabled with a
reason naming the distribution and the selector variable. Each case runs
in a fresh interpreter with real ``*.dist-info`` distributions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_plugins_support import (
    Hook,
    Outcome,
    Runtime,
    general_plugin,
    new_site,
    platform_dist,
    run_loader,
)

SELECTOR: Mapping[Runtime, str] = {
    "srt": "SGLANG_PLATFORM",
    "diffusion": "SGLANG_DIFFUSION_PLATFORM_OVERRIDE",
}
PLATFORMS_MODULE: Mapping[Runtime, str] = {
    "srt": "sglang.srt.platforms",
    "diffusion": "sglang.multimodal_gen.runtime.platforms",
}
LOAD: Mapping[Runtime, str] = {
    "srt": "from sglang.srt.plugins import load_plugins\nload_plugins()\n",
    "diffusion": "api.load_plugins()\n",
}
APPLY: Mapping[Runtime, str] = {
    "srt": "",  # SRT's load_plugins() applies too
    "diffusion": "api.apply_plugin_hooks()\n",
}


def _select(runtime: Runtime) -> str:
    return f"from {PLATFORMS_MODULE[runtime]} import current_platform\ncurrent_platform\n"


def steps(runtime: Runtime, order: str) -> str:
    """The child's steps: when selection runs relative to loading and applying."""
    if order == "loader selects":  # a general plugin makes the loader select
        return LOAD[runtime] + APPLY[runtime]
    if order == "selected first":  # current_platform before any plugin step
        return _select(runtime) + LOAD[runtime] + APPLY[runtime]
    assert order == "selected between"
    assert runtime == "diffusion"
    return LOAD[runtime] + _select(runtime) + APPLY[runtime]


CASES = [
    ("srt", "loader selects"),
    ("srt", "selected first"),
    ("diffusion", "loader selects"),
    ("diffusion", "selected first"),
    ("diffusion", "selected between"),
]


def by_dist(out: Outcome) -> dict[str, dict[str, Any]]:
    """The registered hooks keyed by distribution (one hook per distribution here)."""
    hooks = out.hooks()
    keyed = {str(h["dist"]): h for h in hooks}
    assert len(keyed) == len(hooks), hooks
    return keyed


@pytest.mark.parametrize(("runtime", "order"), CASES)
def test_auto_selection_applies_only_the_selected_platforms_module_hooks(
    tmp_path: Path, runtime: Runtime, order: str
) -> None:
    dists = [
        platform_dist("alpha-platform", {"alpha": True}, runtime=runtime,
                      module_hooks=[Hook(add=10)]),
        platform_dist("beta-platform", {"beta": False}, runtime=runtime,
                      module_hooks=[Hook(add=100)]),
    ]  # fmt: skip
    if order == "loader selects":
        dists.append(general_plugin("obs-dist", "obs", runtime=runtime, hooks=[Hook(add=1000)]))
    out = run_loader(new_site(tmp_path, *dists), runtime=runtime, steps=steps(runtime, order))
    assert out.error is None, out.error
    # selection imported both platform modules, each with its entry point as source
    imported = out.sources("IMPORTED")
    assert imported.pop("obs_dist", "obs/obs-dist/1.0") == "obs/obs-dist/1.0"
    assert imported == {
        "alpha_platform": "alpha/alpha-platform/1.0",
        "beta_platform": "beta/beta-platform/1.0",
    }
    hooks = by_dist(out)
    alpha, beta = hooks["alpha-platform"], hooks["beta-platform"]
    assert (alpha["plugin"], alpha["status"], alpha["reason"]) == ("alpha", "applied", None)
    assert (beta["plugin"], beta["status"]) == ("beta", "disabled")
    reason = beta["reason"]
    assert "distribution beta-platform provides" in reason
    assert "platform that was not selected" in reason
    assert "selected the platform of distribution alpha-platform" in reason
    assert f"{SELECTOR[runtime]}=beta" in reason
    extra = 1000 if order == "loader selects" else 0
    assert out.add == 3 + 10 + extra  # only the selected platform's hook runs
    assert out.warnings == []


@pytest.mark.parametrize("runtime", ["srt", "diffusion"])
def test_explicit_selection_attributes_the_selected_platforms_hooks(
    tmp_path: Path, runtime: Runtime
) -> None:
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, runtime=runtime,
                      module_hooks=[Hook(add=10)]),
        platform_dist("beta-platform", {"beta": True}, runtime=runtime,
                      module_hooks=[Hook(add=100)], class_hooks=[Hook(add=1000)]),
        general_plugin("obs-dist", "obs", runtime=runtime, hooks=[Hook(add=10000)]),
    )  # fmt: skip
    out = run_loader(site, {SELECTOR[runtime]: "beta"}, runtime=runtime)
    assert out.error is None, out.error
    # only the named platform's module and class module were imported (and the plugin)
    assert out.sources("IMPORTED") == {
        "beta_platform": "beta/beta-platform/1.0",
        "beta_platform.platform": "beta/beta-platform/1.0",
        "obs_dist": "obs/obs-dist/1.0",
    }
    assert [(h["plugin"], h["dist"], h["status"]) for h in out.hooks()] == [
        ("beta", "beta-platform", "applied"),  # activation module, at import
        ("beta", "beta-platform", "applied"),  # platform class module, at import
        ("obs", "obs-dist", "applied"),
    ]
    assert out.add == 3 + 100 + 1000 + 10000


@pytest.mark.parametrize("runtime", ["srt", "diffusion"])
def test_the_selected_platforms_module_hooks_stay_required(
    tmp_path: Path, runtime: Runtime
) -> None:
    missing = "tests.hooktargets.basic.no_such_function"
    site = new_site(
        tmp_path,
        platform_dist("alpha-platform", {"alpha": True}, runtime=runtime,
                      module_hooks=[Hook(add=10), Hook(target=missing)]),
        platform_dist("beta-platform", {"beta": False}, runtime=runtime,
                      module_hooks=[Hook(target=missing)]),
    )  # fmt: skip
    out = run_loader(site, runtime=runtime, steps=steps(runtime, "selected first"))
    assert out.error_type == "HookApplyError"
    assert out.error is not None
    assert "platform plugin 'alpha' (distribution alpha-platform 1.0)" in out.error
    assert "beta" not in out.error  # the unselected one's broken hook is disabled, not tried
    assert out.add == 3  # rolled back
    statuses = {(h["dist"], h["status"]) for h in out.hooks()}
    assert ("beta-platform", "disabled") in statuses
    assert out.warnings == []
