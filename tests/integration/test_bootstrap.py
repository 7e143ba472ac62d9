"""The spawn bootstrap with real spawned processes.

Workers run :mod:`tests.bootstrap_targets`; plugins are real ``*.dist-info``
distributions on ``sys.path``, which spawn hands to every child.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sglang.runtime.bootstrap import Payload, WorkerFailedError, WorkerGroup, WorkerSpec, launcher
from sglang.sdk.constants import SRT_PLUGINS_GROUP
from tests import bootstrap_targets
from tests.bootstrap_targets import Args
from tests.support.dists import REPO_ROOT, Dist, Site
from tests.support.processes import HAS_PROC, wait_gone

TARGETS = "tests.bootstrap_targets"


@pytest.fixture
def events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "events.txt"
    path.touch()
    monkeypatch.setenv("BOOTSTRAP_EVENTS", str(path))
    return path


def spec(
    target: str = "serve", *, rank: int = 0, steps: tuple[str, ...] = (), value: int = 1
) -> WorkerSpec:
    return WorkerSpec(
        name=f"test worker rank {rank}",
        target=f"{TARGETS}:{target}",
        payload=Payload.pack(Args(value)),
        steps=steps,
        rank=rank,
    )


def test_steps_run_in_order_then_the_target_gets_the_materialised_payload(events: Path) -> None:
    steps = (f"{TARGETS}:step_one", f"{TARGETS}:step_two")
    with WorkerGroup([spec(steps=steps, value=41)]) as group:
        (info,) = group.wait_ready(timeout=60).values()
        assert isinstance(info, dict)
        assert info["pid"] != os.getpid()
        assert info["describe"] == "value 41"
        group.send(0, "ping")
        assert group.recv(0, timeout=30) == ("echo", "ping")
        group.send(0, "stop")
    # nothing of the runtime (nor torch) was imported before the first step
    assert events.read_text().splitlines() == ["step_one -", "step_two"]


def test_a_local_spawn_context_whatever_the_parent_does(
    events: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bootstrap_targets, "PARENT_STATE", "changed in the parent")
    with WorkerGroup([spec()]) as group:
        (info,) = group.wait_ready(timeout=60).values()
    assert isinstance(info, dict)
    assert info["parent_state"] == "default"  # a fork would have copied the change


def test_several_ranks(events: Path) -> None:
    with WorkerGroup([spec(rank=0, value=10), spec(rank=1, value=11)]) as group:
        infos = group.wait_ready(timeout=60)
    assert {rank: info["describe"] for rank, info in infos.items()} == {  # type: ignore[index]
        0: "value 10",
        1: "value 11",
    }


def test_duplicate_ranks_are_refused() -> None:
    with pytest.raises(ValueError, match="ranks must be unique"):
        WorkerGroup([spec(rank=0), spec(rank=0)])


def test_a_failing_step_fails_the_group_with_the_childs_traceback(events: Path) -> None:
    group = WorkerGroup([spec(steps=(f"{TARGETS}:step_fail",))]).start()
    with pytest.raises(WorkerFailedError) as caught:
        group.wait_ready(timeout=60)
    error = caught.value
    assert error.stage == f"running start-up step {TARGETS}:step_fail"
    assert "RuntimeError: demo firmware missing" in str(error)
    assert "in step_fail" in error.child_traceback
    assert error.exitcode == 1
    assert not group.processes[0].is_alive()


def test_a_failing_target_is_reported(events: Path) -> None:
    with (
        WorkerGroup([spec("explode", value=3)]) as group,
        pytest.raises(WorkerFailedError) as caught,
    ):
        group.wait_ready(timeout=60)
    assert "ValueError: rank 0 cannot serve value 3" in str(caught.value)
    assert caught.value.stage == f"running {TARGETS}:explode"


def test_a_worker_that_dies_silently_never_leaves_the_parent_waiting(events: Path) -> None:
    with WorkerGroup([spec("vanish")]) as group, pytest.raises(WorkerFailedError) as caught:
        group.recv(0)  # no timeout: the process sentinel ends the wait
    assert caught.value.exitcode == 7
    assert "exited with status 7 without reporting an error" in str(caught.value)


def test_a_worker_that_hangs_up_but_runs_on_is_not_reported_as_exited(
    events: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(launcher, "_GRACE", 0.5)
    with WorkerGroup([spec("hang_up")]) as group, pytest.raises(WorkerFailedError) as caught:
        group.wait_ready(timeout=60)
    assert caught.value.exitcode is None
    assert "closed its connection to the launcher" in str(caught.value)
    assert "is still running 0.5 s later" in str(caught.value)


def test_stop_ends_the_workers_and_leaves_the_connections_to_shutdown(events: Path) -> None:
    group = WorkerGroup([spec("linger")]).start()
    try:
        group.wait_ready(timeout=60)
        group.stop(grace=5)
        assert not group.processes[0].is_alive()
        assert not group.connections[0].closed  # a reader still inside recv() returns first
        with pytest.raises(WorkerFailedError):
            group.recv(0, timeout=5)
    finally:
        group.shutdown()
    assert group.connections[0].closed


def test_a_payload_of_the_wrong_type_is_refused(events: Path) -> None:
    bad = WorkerSpec(
        name="bad payload",
        target=f"{TARGETS}:serve",
        payload=Payload(f"{TARGETS}:Args", pickle.dumps({"value": 1})),
    )
    with WorkerGroup([bad]) as group, pytest.raises(WorkerFailedError) as caught:
        group.wait_ready(timeout=60)
    assert "worker payload holds a builtins.dict, not the tests.bootstrap_targets:Args" in str(
        caught.value
    )


def test_timeouts_are_errors_not_hangs(events: Path) -> None:
    with WorkerGroup([spec("linger")]) as group:
        group.wait_ready(timeout=60)
        with pytest.raises(TimeoutError, match=r"sent nothing within 0\.2 s"):
            group.recv(0, timeout=0.2)


def test_shutdown_stops_every_worker(events: Path) -> None:
    group = WorkerGroup([spec("linger", rank=0), spec("linger", rank=1)]).start()
    group.wait_ready(timeout=60)
    group.shutdown(grace=2)
    assert [p.is_alive() for p in group.processes.values()] == [False, False]
    group.shutdown()  # idempotent


def test_plugin_hooks_apply_in_the_child_before_the_target_runs(
    events: Path, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    site.install(
        Dist(
            "hooking-dist",
            entry_points={SRT_PLUGINS_GROUP: {"hooking": "hooking_dist:register"}},
            modules={
                "hooking_dist/__init__.py": """
                    import os
                    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

                    def _around(original, args):
                        return f"{original(args)} hooked in {os.getpid()}"

                    def register():
                        HookRegistry.register(
                            "tests.bootstrap_targets:describe", _around, HookType.AROUND
                        )
                """
            },
        )
    )
    monkeypatch.setenv("SGLANG_USE_CPU_ENGINE", "1")
    monkeypatch.setenv("SGLANG_PLUGINS", "hooking")
    with WorkerGroup([spec(steps=("sglang.srt.plugins:load_plugins",), value=5)]) as group:
        (info,) = group.wait_ready(timeout=60).values()
    assert isinstance(info, dict)
    assert info["describe"] == f"value 5 hooked in {info['pid']}"
    assert bootstrap_targets.describe(Args(5)) == "value 5"  # the parent is untouched


def _run_script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "launch.py"
    script.write_text(textwrap.dedent(body), encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not HAS_PROC, reason="reads process states from /proc")
def test_workers_end_when_their_parent_dies(tmp_path: Path, events: Path) -> None:
    result = _run_script(
        tmp_path,
        """
        import os
        from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec
        from tests.bootstrap_targets import Args

        if __name__ == "__main__":
            group = WorkerGroup([WorkerSpec("orphan", "tests.bootstrap_targets:linger",
                                            Payload.pack(Args(1)))]).start()
            print("CHILD", group.wait_ready(timeout=60)[0], flush=True)
            os._exit(0)  # no shutdown, no atexit: the parent just dies
        """,
    )
    assert result.returncode == 0, result.stderr
    pid = int(result.stdout.split("CHILD ")[1])
    assert wait_gone([pid], timeout=10), f"worker {pid} outlived its parent"


def test_a_child_names_runtime_modules_imported_before_it_started(
    tmp_path: Path, events: Path
) -> None:
    result = _run_script(
        tmp_path,
        """
        import tests.hooktargets.basic  # module scope: spawn runs it again in the child
        from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec
        from tests.bootstrap_targets import Args

        if __name__ == "__main__":
            spec = WorkerSpec("scheduler", "tests.bootstrap_targets:serve",
                              Payload.pack(Args(1)), watched_modules=("tests.hooktargets",))
            with WorkerGroup([spec]) as group:
                group.wait_ready(timeout=60)
                group.send(0, "stop")
            print("DONE")
        """,
    )
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "already imported" in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith(
        "scheduler started with runtime modules already imported: "
        "tests.hooktargets, tests.hooktargets.basic."
    )
    assert 'if __name__ == "__main__":' in warnings[0]


def test_the_guide_shows_the_warning_verbatim(caplog: pytest.LogCaptureFixture) -> None:
    from sglang.runtime.bootstrap import LOGGER_NAME
    from sglang.runtime.bootstrap.child import _warn_imported

    shown = WorkerSpec("scheduler", f"{TARGETS}:serve", Payload.pack(Args(1)))
    with caplog.at_level("WARNING", logger=LOGGER_NAME):
        _warn_imported(shown, ["sglang.srt.managers", "sglang.srt.managers.scheduler"])
    guide = (REPO_ROOT / "docs" / "guides" / "workers.rst").read_text(encoding="utf-8")
    assert f"   {caplog.records[0].getMessage()}\n" in guide


def test_join_waits_for_workers_that_exit_by_themselves(events: Path) -> None:
    group = WorkerGroup([spec()]).start()
    group.wait_ready(timeout=60)
    assert group.join(timeout=0.2) is False  # still serving
    group.send(0, "stop")
    assert group.join(timeout=30) is True
    assert group.processes[0].exitcode == 0
    group.shutdown()


@pytest.mark.parametrize(("level", "shown"), [(None, ["warning"]), ("info", ["info", "warning"])])
def test_a_workers_log_level_is_its_specs_and_it_leaves_through_its_exit_handlers(
    tmp_path: Path, events: Path, level: str | None, shown: list[str]
) -> None:
    result = _run_script(
        tmp_path,
        f"""
        from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec
        from tests.bootstrap_targets import Args

        if __name__ == "__main__":
            spec = WorkerSpec("logger", "tests.bootstrap_targets:log_and_leave",
                              Payload.pack(Args(1)), log_level={level!r})
            group = WorkerGroup([spec]).start()
            group.wait_ready(timeout=60)
            print("JOINED", group.join(timeout=30), group.processes[0].exitcode)
            group.shutdown()
        """,
    )
    assert result.returncode == 0, result.stderr
    assert "JOINED True 0" in result.stdout
    records = [line for line in result.stderr.splitlines() if "worker record at" in line]
    assert [line.rsplit(" ", 1)[1] for line in records] == shown, result.stderr
    if level is not None:
        assert records[0].split()[2:4] == ["INFO", "sglang.test.worker:"]  # LOG_FORMAT
    assert events.read_text().splitlines() == ["atexit ran"]  # exit handlers still run
