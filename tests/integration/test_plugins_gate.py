"""The activation gate around plugin loading: once, threads wait, re-entry returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang.runtime import SRT
from sglang.runtime.hooks import HookRegistry, HookType, PluginSource
from sglang.runtime.plugins import RuntimePlugins
from tests.integration.test_plugins_support import Hook, general_plugin, new_site, run_loader

THREADS = """
import threading, time
from sglang.srt.plugins import load_plugins
from tests.hooktargets import basic

start = threading.Barrier(16)
seen = []

def worker():
    start.wait()
    load_plugins()
    seen.append(basic.add(1, 2))  # every caller returns only after hooks are applied

threads = [threading.Thread(target=worker) for _ in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("SEEN", sorted(set(seen)), len(seen), flush=True)
"""


def test_sixteen_threads_run_the_callbacks_once(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        general_plugin(
            "slow-dist",
            "slow",
            hooks=[Hook(add=10)],
            callback_extra="import time\ntime.sleep(0.3)",
        ),
        general_plugin("quick-dist", "quick", hooks=[Hook(add=100)]),
    )
    out = run_loader(site, steps=THREADS)
    assert out.error is None, out.error
    assert sorted(out.called()) == ["quick", "slow"]  # once each, not once per thread
    assert sorted(out.imported()) == ["quick_dist", "slow_dist"]
    assert "SEEN [113] 16" in out.result.stdout
    assert out.add == 113


def test_reentrant_load_plugins_from_a_callback_returns(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        general_plugin(
            "nested-dist",
            "nested",
            hooks=[Hook(add=10)],
            callback_extra="""
            from sglang.srt.plugins import load_plugins
            from tests.hooktargets import basic
            print("INNER", load_plugins(), basic.add(1, 2), flush=True)
            """,
        ),
        general_plugin("later-dist", "later", hooks=[Hook(add=100)]),
    )
    out = run_loader(site)
    assert out.error is None, out.error
    assert "INNER () 3" in out.result.stdout  # returned at once, nothing applied yet
    assert sorted(out.called()) == ["later", "nested"]
    assert out.add == 113


@pytest.mark.parametrize("runtime", ["srt", "diffusion"])
def test_a_failed_step_is_remembered(tmp_path: Path, runtime: str) -> None:
    site = new_site(
        tmp_path,
        general_plugin("obs-dist", "obs", runtime="srt" if runtime == "srt" else "diffusion"),
    )
    steps = (
        "from sglang.srt.plugins import load_plugins as step"
        if runtime == "srt"
        else "step = api.apply_plugin_hooks"
    )
    out = run_loader(
        site,
        runtime="srt" if runtime == "srt" else "diffusion",
        steps=f"""
        {steps}
        from sglang.runtime.hooks import HookType
        # a direct registration on a missing target is required: the step fails
        api.HookRegistry.register("tests.hooktargets.basic.gone", print, HookType.AFTER)
        errors = []
        for _ in range(2):
            try:
                step()
            except Exception as exc:
                errors.append(exc)
        print("FAILURES", len(errors), errors[0] is errors[1], flush=True)
        """,
    )
    assert "FAILURES 2 True" in out.result.stdout, out.result.stderr
    assert out.called() == ["obs"]  # registration itself ran once


def test_reset_forgets_the_required_distribution() -> None:
    plugins = RuntimePlugins(SRT, registry=HookRegistry(SRT))
    plugins.registry.set_required_dists({"Vendor-Platform"})  # as registration does
    plugins.reset()
    assert plugins.registry.required_dists == frozenset()
    # a hook of that distribution registered after the reset is best-effort again
    source = PluginSource("vendor", "vendor-platform", "1.0", SRT.plugins_group)
    plugins.registry.register(
        "tests.hooktargets.basic.missing", print, HookType.AFTER, source=source
    )
    [info] = plugins.registry.apply_hooks()
    assert info.status.value == "failed"
    plugins.reset()
