"""Once-per-process semantics of selection and ``init_backend()``, in fresh interpreters.

Concurrency, re-entrancy from an activation callback, remembered failures
and the once-only backend initialisation, for both runtimes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_selection_support import (
    MODULE,
    SELECTOR,
    Runtime,
    new_site,
    plugin,
)
from tests.support.dists import run_python

RUNTIMES: list[Runtime] = ["srt", "diffusion"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_sixteen_threads_activate_exactly_once(tmp_path: Path, runtime: Runtime) -> None:
    slow = """
        import time
        time.sleep(0.3)  # keep the other threads waiting on the gate
        return PKG_PLATFORM
    """.replace("PKG_PLATFORM", repr("slow_dist.platform:Plat"))
    site = new_site(tmp_path, plugin("slow-dist", "slow", runtime=runtime, body=slow))
    result = run_python(
        f"""
        import threading
        import {MODULE[runtime]} as platforms
        barrier = threading.Barrier(16)
        seen = []
        def worker():
            barrier.wait()
            seen.append(id(platforms.current_platform))
        threads = [threading.Thread(target=worker) for _ in range(16)]
        for t in threads: t.start()
        for t in threads: t.join()
        print("RESOLVED", len(seen), "DISTINCT", len(set(seen)))
        """,
        path=[site.root],
    ).check()
    assert result.stdout.count("CALLED slow") == 1
    assert "RESOLVED 16 DISTINCT 1" in result.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reentrant_access_from_callback_gets_clear_error(tmp_path: Path, runtime: Runtime) -> None:
    body = f"""
        try:
            from {MODULE[runtime]} import current_platform
        except RuntimeError as exc:
            print("INNER", type(exc).__name__, str(exc).splitlines()[0], flush=True)
        else:
            print("INNER got", current_platform, flush=True)
        return "curious_dist.platform:Plat"
    """
    site = new_site(tmp_path, plugin("curious-dist", "curious", runtime=runtime, body=body))
    result = run_python(
        f"""
        from {MODULE[runtime]} import current_platform
        print("OUTER", type(current_platform).__qualname__)
        """,
        path=[site.root],
    ).check()
    lines = result.stdout.splitlines()
    inner = next(line for line in lines if line.startswith("INNER"))
    assert inner.startswith("INNER PlatformSelectionError")
    assert "platform plugin 'curious' (distribution curious-dist 1.0) accessed" in inner
    assert f"{MODULE[runtime]}.current_platform while the" in inner
    assert "OUTER Plat" in lines  # the outer resolution finished normally
    assert result.stdout.count("CALLED curious") == 1


def test_uncaught_reentrant_access_aborts_with_both_messages(tmp_path: Path) -> None:
    body = """
        from sglang.srt.platforms import current_platform
        return "x"
    """
    site = new_site(tmp_path, plugin("nosy-dist", "nosy", body=body))
    result = run_python(
        """
        from sglang.srt.platforms import current_platform
        """,
        path=[site.root],
    )
    assert result.returncode != 0
    assert "failed while running its activation callback nosy_dist:activate" in result.stderr
    assert "Activation callbacks must not access current_platform" in result.stderr


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_failure_is_remembered_and_never_retried(tmp_path: Path, runtime: Runtime) -> None:
    site = new_site(
        tmp_path, plugin("flaky-dist", "flaky", runtime=runtime, body="raise ValueError('once')")
    )
    result = run_python(
        f"""
        import threading
        import {MODULE[runtime]} as platforms
        errors = []
        def attempt():
            try:
                platforms.current_platform
            except Exception as exc:
                errors.append(exc)
        attempt()
        threads = [threading.Thread(target=attempt) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        attempt()
        print("ERRORS", len(errors), "SAME", all(e is errors[0] for e in errors))
        report = platforms.get_selection_report()
        print("REPORT_ERROR", report.error.splitlines()[0])
        """,
        path=[site.root],
    ).check()
    assert result.stdout.count("CALLED flaky") == 1
    assert "ERRORS 6 SAME True" in result.stdout
    assert "REPORT_ERROR PlatformSelectionError:" in result.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_init_backend_runs_once_across_threads(tmp_path: Path, runtime: Runtime) -> None:
    site = new_site(tmp_path, plugin("init-dist", "initp", runtime=runtime))
    result = run_python(
        f"""
        import threading
        import {MODULE[runtime]} as platforms
        threads = [
            threading.Thread(target=platforms.initialize_current_platform) for _ in range(8)
        ]
        for t in threads: t.start()
        for t in threads: t.join()
        platforms.initialize_current_platform()
        print("CALLS", type(platforms.current_platform).init_calls)
        """,
        path=[site.root],
        env={SELECTOR[runtime]: "initp"},
    ).check()
    assert result.stdout.count("INIT initp") == 1
    assert "CALLS 1" in result.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_init_backend_failure_is_remembered(tmp_path: Path, runtime: Runtime) -> None:
    base = {
        "srt": "from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform as Base\n",
        "diffusion": "from sglang.multimodal_gen.runtime.platforms import Platform as Base, "
        "PlatformEnum\n",
    }[runtime]
    source = base + (
        "class Plat(Base):\n    _enum = PlatformEnum.OOT\n"
        "    def init_backend(self):\n"
        "        print('INIT bad', flush=True)\n"
        "        raise RuntimeError('firmware missing')\n"
    )
    site = new_site(
        tmp_path, plugin("bad-init-dist", "badinit", runtime=runtime, platform_source=source)
    )
    result = run_python(
        f"""
        import {MODULE[runtime]} as platforms
        errors = []
        for _ in range(3):
            try:
                platforms.initialize_current_platform()
            except Exception as exc:
                errors.append(exc)
        print("ERRORS", len(errors), type(errors[0]).__name__, all(e is errors[0] for e in errors))
        print("MESSAGE", str(errors[0]).splitlines()[0])
        print("CAUSE", type(errors[0].__cause__).__name__)
        """,
        path=[site.root],
    ).check()
    assert result.stdout.count("INIT bad") == 1
    assert "ERRORS 3 PlatformInitError True" in result.stdout
    assert "init_backend() of the" in result.stdout
    assert "bad_init_dist.platform.Plat (distribution bad-init-dist 1.0) failed" in result.stdout
    assert "RuntimeError: firmware missing" in result.stdout
    assert "CAUSE RuntimeError" in result.stdout


def test_reentrant_initialize_from_init_backend_returns(tmp_path: Path) -> None:
    source = (
        "from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform\n"
        "class Plat(SRTPlatform):\n    _enum = PlatformEnum.OOT\n"
        "    def init_backend(self):\n"
        "        print('INIT outer', flush=True)\n"
        "        from sglang.srt.platforms import initialize_current_platform\n"
        "        initialize_current_platform()\n"
        "        print('INIT inner returned', flush=True)\n"
    )
    site = new_site(tmp_path, plugin("re-dist", "re", platform_source=source))
    result = run_python(
        """
        from sglang.srt.platforms import initialize_current_platform
        initialize_current_platform()
        initialize_current_platform()
        print("DONE")
        """,
        path=[site.root],
    ).check()
    assert result.stdout.count("INIT outer") == 1
    assert "INIT inner returned" in result.stdout
    assert "DONE" in result.stdout


def test_initialize_from_a_callback_fails_without_poisoning_init(tmp_path: Path) -> None:
    body = """
        from sglang.srt.platforms import initialize_current_platform
        try:
            initialize_current_platform()
        except RuntimeError as exc:
            print("INNER", type(exc).__name__, flush=True)
        return "eager_dist.platform:Plat"
    """
    site = new_site(tmp_path, plugin("eager-dist", "eager", body=body))
    result = run_python(
        """
        from sglang.srt.platforms import initialize_current_platform
        initialize_current_platform()
        print("DONE")
        """,
        path=[site.root],
    ).check()
    assert "INNER PlatformSelectionError" in result.stdout
    assert result.stdout.count("INIT eager") == 1
    assert "DONE" in result.stdout


def test_first_resolution_stack_is_kept(tmp_path: Path) -> None:
    site = new_site(tmp_path, plugin("stack-dist", "stack"))
    result = run_python(
        """
        import sglang.srt.platforms as platforms
        def where_it_started():
            return platforms.current_platform
        where_it_started()
        platforms.current_platform
        stack = platforms.get_selection_report().first_stack
        print("HAS_CALLER", any("where_it_started" in frame for frame in stack))
        """,
        path=[site.root],
    ).check()
    assert "HAS_CALLER True" in result.stdout


def test_platform_dists_reads_metadata_only(tmp_path: Path) -> None:
    site = new_site(
        tmp_path,
        plugin("one-dist", "one"),
        plugin("two-dist", "two", runtime="diffusion"),
    )
    result = run_python(
        """
        import sys
        from sglang.runtime.spec import DIFFUSION, SRT
        from sglang.runtime.selection import platform_dists, selection_report
        print("SRT", sorted(platform_dists(SRT)))
        print("DIFF", sorted(platform_dists(DIFFUSION)))
        print("IMPORTED", [m for m in ("one_dist", "two_dist") if m in sys.modules])
        print("REPORT", selection_report(SRT, resolve=False))
        """,
        path=[site.root],
    ).check()
    assert "SRT ['one-dist']" in result.stdout
    assert "DIFF ['two-dist']" in result.stdout
    assert "IMPORTED []" in result.stdout
    assert "REPORT None" in result.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_selection_report_from_a_callback_gets_the_reentrancy_error(
    tmp_path: Path, runtime: Runtime
) -> None:
    # there is no report while selection runs: the callback must get the documented
    # PlatformSelectionError, not a bare AssertionError (or None under python -O)
    body = f"""
        from {MODULE[runtime]} import get_selection_report
        try:
            get_selection_report()
        except BaseException as exc:
            print("INNER", type(exc).__name__, str(exc).splitlines()[:1], flush=True)
        return "reporter_dist.platform:Plat"
    """
    site = new_site(tmp_path, plugin("reporter-dist", "reporter", runtime=runtime, body=body))
    result = run_python(
        f"""
        import {MODULE[runtime]} as platforms
        print("OUTER", type(platforms.current_platform).__qualname__)
        print("REPORT", platforms.get_selection_report().platform_entry_point)
        """,
        path=[site.root],
    ).check()
    inner = next(line for line in result.stdout.splitlines() if line.startswith("INNER"))
    assert inner.startswith("INNER PlatformSelectionError")
    assert "platform plugin 'reporter' (distribution reporter-dist 1.0) accessed" in inner
    assert "OUTER Plat" in result.stdout
    assert "REPORT reporter" in result.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_init_backend_failure_names_the_plugin_and_the_fixing_commands(
    tmp_path: Path, runtime: Runtime
) -> None:
    base = {
        "srt": "from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform as Base\n",
        "diffusion": "from sglang.multimodal_gen.runtime.platforms import Platform as Base, "
        "PlatformEnum\n",
    }[runtime]
    source = base + (
        "class Plat(Base):\n    _enum = PlatformEnum.OOT\n"
        "    def init_backend(self):\n        raise RuntimeError('firmware missing')\n"
    )
    site = new_site(
        tmp_path, plugin("named-init-dist", "namedinit", runtime=runtime, platform_source=source)
    )
    result = run_python(
        f"""
        import {MODULE[runtime]} as platforms
        try:
            platforms.initialize_current_platform()
        except Exception as exc:
            print(exc)
        """,
        path=[site.root],
    ).check()
    assert "platform plugin 'namedinit'" in result.stdout
    assert "pip install --force-reinstall named-init-dist" in result.stdout
    assert "pip uninstall named-init-dist" in result.stdout
    assert f"select another platform with {SELECTOR[runtime]}" in result.stdout
