"""The example plugin ``sglang-observability`` loaded through real entry points.

Its distribution is a real ``sglang_observability-0.1.0.dist-info`` (the
entry points of ``examples/observability_plugin/pyproject.toml``) in a site
folder, with the example's source folder on the path; each test runs a
fresh interpreter. ``SGLANG_OBSERVABILITY_TARGETS`` points the plugin at the
real modules in ``tests/hooktargets``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.runtime import SRT
from sglang.runtime.hooks import HookRegistry, HookStatus, HookType
from tests.hooktargets import basic
from tests.support.dists import REPO_ROOT, Dist, Site, run_python
from tests.support.examples import example_dist

EXAMPLE = REPO_ROOT / "examples" / "observability_plugin"
TARGETS = ",".join(
    [
        "tests.hooktargets.basic.add",
        "tests.hooktargets.basic:Base.method",
        "tests.hooktargets.basic.fetch",
    ]
)


def observability_dist() -> Dist:
    """The example's distribution metadata, read from its pyproject.toml."""
    return example_dist("observability_plugin")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    result = Site(tmp_path / "site")
    result.install(observability_dist())
    return result


CHILD = """
import asyncio, json
{load}
import sglang_observability
from tests.hooktargets import basic

for i in range(3):
    basic.add(i, 1)
basic.Base(2).method(5)
asyncio.run(basic.fetch(4))
try:
    basic.add("x", 1)
except TypeError:
    pass
print("STATS " + json.dumps({{t: [s.calls, s.timed, s.errors, s.total_s, s.min_s, s.max_s]
                              for t, s in sglang_observability.stats().items()}}))
print("HOOKS " + json.dumps([[h.target, h.hook_type.name, h.status.value, h.source.name,
                              h.source.dist_name, h.source.dist_version] for h in reg.hooks()]))
"""

LOADERS = {
    "srt": "from sglang.srt.plugins import load_plugins\n"
    "from sglang.srt.plugins.hook_registry import HookRegistry as reg\nload_plugins()",
    "diffusion": "from sglang.multimodal_gen.runtime.platforms import plugins\n"
    "reg = plugins.HookRegistry\nplugins.load_plugins()\nplugins.apply_plugin_hooks()",
}


def _json_line(stdout: str, marker: str) -> object:
    [line] = [line for line in stdout.splitlines() if line.startswith(marker + " ")]
    return json.loads(line[len(marker) + 1 :])


@pytest.mark.parametrize("runtime", ["srt", "diffusion"])
def test_counts_and_times_the_configured_targets(site: Site, runtime: str) -> None:
    result = run_python(
        CHILD.format(load=LOADERS[runtime]),
        path=[site.root, EXAMPLE, REPO_ROOT],
        env={"SGLANG_OBSERVABILITY_TARGETS": TARGETS},
    ).check()
    stats = _json_line(result.stdout, "STATS")
    assert isinstance(stats, dict)
    add = stats["tests.hooktargets.basic.add"]
    assert add[:3] == [4, 4, 1]  # 4 calls, 4 timed, 1 raised
    assert 0 < add[4] <= add[5] <= add[3]  # min <= max <= total
    assert stats["tests.hooktargets.basic:Base.method"][:3] == [1, 1, 0]
    fetch = stats["tests.hooktargets.basic.fetch"]
    assert fetch[:3] == [1, 1, 0]  # the async target was awaited, then timed
    hooks = _json_line(result.stdout, "HOOKS")
    assert isinstance(hooks, list)
    assert len(hooks) == 6
    for target, hook_type, status, plugin, dist, version in hooks:
        assert target in TARGETS.split(",")
        assert hook_type in ("BEFORE", "AROUND")
        assert status == "applied"
        assert (plugin, dist, version) == ("observability", "sglang-observability", "0.1.0")


def test_missing_default_targets_are_skipped_with_one_warning_each(site: Site) -> None:
    result = run_python(
        """
        import logging
        logging.basicConfig(level=logging.WARNING)
        from sglang.srt.plugins import load_plugins
        from sglang.srt.plugins.hook_registry import HookRegistry
        load_plugins()
        from sglang_observability import DEFAULT_SRT_TARGETS
        failed = [h for h in HookRegistry.hooks() if h.status.value == "failed"]
        applied = [h for h in HookRegistry.hooks() if h.status.value == "applied"]
        print("COUNTS", len(DEFAULT_SRT_TARGETS), len(failed), len(applied))
        """,
        path=[site.root, EXAMPLE, REPO_ROOT],
    ).check()
    [line] = [line for line in result.stdout.splitlines() if line.startswith("COUNTS")]
    targets, failed, applied = (int(n) for n in line.split()[1:])
    assert failed + applied == 2 * targets  # a BEFORE and an AROUND hook per target
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == failed  # startup continued; one warning per skipped hook
    assert all("sglang-observability 0.1.0" in line for line in warnings)


def test_logs_the_table_at_exit_when_asked(site: Site) -> None:
    result = run_python(
        """
        from sglang.srt.plugins import load_plugins
        load_plugins()
        from tests.hooktargets import basic
        basic.add(1, 2)
        """,
        path=[site.root, EXAMPLE, REPO_ROOT],
        env={
            "SGLANG_OBSERVABILITY_TARGETS": "tests.hooktargets.basic.add",
            "SGLANG_OBSERVABILITY_LOG_AT_EXIT": "1",
        },
    ).check()
    assert "sglang-observability call statistics" in result.stderr
    assert "tests.hooktargets.basic.add" in result.stderr


def test_allowlist_can_leave_it_out(site: Site) -> None:
    result = run_python(
        """
        from sglang.srt.plugins import load_plugins
        load_plugins()
        import sys
        print("LOADED", "sglang_observability" in sys.modules)
        """,
        path=[site.root, EXAMPLE, REPO_ROOT],
        env={"SGLANG_PLUGINS": "something_else"},
    ).check()
    assert "LOADED False" in result.stdout


# -- in-process: the hooks and the stats API ---------------------------------------------


@pytest.fixture
def observability(monkeypatch: pytest.MonkeyPatch) -> Iterator[HookRegistry]:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import sglang_observability

    sglang_observability.reset_stats()
    registry = HookRegistry(SRT)
    yield registry
    registry.reset()
    sglang_observability.reset_stats()
    for name in [m for m in sys.modules if m.startswith("sglang_observability")]:
        del sys.modules[name]


def test_stats_api(observability: HookRegistry) -> None:
    import sglang_observability as obs

    target = "tests.hooktargets.basic.Base.scaled"
    observability.register(target, obs.CallCounter(target, obs.COLLECTOR), HookType.BEFORE)
    observability.register(target, obs.Timer(target, obs.COLLECTOR), HookType.AROUND)
    observability.apply_hooks()
    assert {info.status for info in observability.hooks()} == {HookStatus.APPLIED}
    assert basic.Child.scaled(2) == 10
    entry = obs.stats()[target]
    assert (entry.calls, entry.timed, entry.errors) == (1, 1, 0)
    assert entry.mean_s == entry.total_s > 0
    table = obs.format_stats(obs.stats())
    assert table.splitlines()[0].split() == ["target", "calls", "errors", "total", "ms",
                                             "mean", "ms", "max", "ms"]  # fmt: skip
    obs.reset_stats()
    assert obs.stats() == {}


def test_default_targets_are_the_guides_common_srt_targets(
    observability: HookRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sglang_observability import targets

    assert targets.DEFAULT_SRT_TARGETS == (
        "sglang.srt.server_args.ServerArgs.add_cli_args",
        "sglang.srt.server_args.ServerArgs.__post_init__",
        "sglang.srt.server_args.ServerArgs.check_server_args",
        "sglang.srt.managers.scheduler.Scheduler.__init__",
        "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run",
        "sglang.srt.managers.scheduler.Scheduler.run_batch",
        "sglang.srt.managers.scheduler.Scheduler.process_batch_result",
        "sglang.srt.managers.tp_worker.TpModelWorker.__init__",
        "sglang.srt.managers.tp_worker.TpModelWorker.forward_batch_generation",
    )
    monkeypatch.setenv("SGLANG_OBSERVABILITY_TARGETS", " a.b , c:d,a.b,")
    assert targets.configured_targets(("x.y",)) == ("a.b", "c:d")
    monkeypatch.delenv("SGLANG_OBSERVABILITY_TARGETS")
    assert targets.configured_targets(("x.y",)) == ("x.y",)


ENGINE = """
import json
from sglang.srt.entrypoints.engine import Engine
from sglang_observability import DEFAULT_SRT_TARGETS
if __name__ == "__main__":
    print("DEFAULTS " + json.dumps(DEFAULT_SRT_TARGETS))
    with Engine(model_path={model!r}, max_total_tokens=256) as engine:
        engine.generate(["Hello world", "fox"], {{"temperature": 0, "max_new_tokens": 4}})
"""


def test_the_default_targets_are_the_real_runtimes(site: Site, tmp_path: Path) -> None:
    """On the reference runtime, every default SRT target exists and is counted."""
    from sglang.testing.make_model import make_model

    model = make_model(tmp_path / "model", arch="llama")
    result = run_python(
        ENGINE.format(model=str(model)),
        path=[site.root, EXAMPLE],
        env={"SGLANG_USE_CPU_ENGINE": "1", "SGLANG_OBSERVABILITY_LOG_AT_EXIT": "1"},
        timeout=300,
    ).check()
    assert "WARNING" not in result.stderr, result.stderr  # no target is missing
    # the scheduler process logs its table when it exits
    tables = result.stderr.split("sglang-observability call statistics:")[1:]
    assert tables, result.stderr
    counts = [_calls(table) for table in tables]
    scheduler = next(c for c in counts if "sglang.srt.managers.scheduler.Scheduler.__init__" in c)
    defaults = _json_line(result.stdout, "DEFAULTS")
    assert isinstance(defaults, list)
    for target in defaults:
        if ".managers." in target:
            assert scheduler[target] >= 1, (target, scheduler)
    assert scheduler["sglang.srt.managers.scheduler.Scheduler.__init__"] == 1
    assert (
        scheduler["sglang.srt.managers.tp_worker.TpModelWorker.forward_batch_generation"]
        == (scheduler["sglang.srt.managers.scheduler.Scheduler.run_batch"])
    )
    launcher = next(c for c in counts if c is not scheduler)
    assert launcher["sglang.srt.server_args.ServerArgs.check_server_args"] == 1


def _calls(table: str) -> dict[str, int]:
    """``{target: calls}`` from one logged statistics table."""
    rows = [line.split() for line in table.strip().splitlines()[1:]]
    return {row[0]: int(row[1]) for row in rows if len(row) == 6 and row[1].isdigit()}
