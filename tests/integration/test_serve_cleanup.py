"""The core CLI ends the whole process tree a backend started, on every way out.

The example runtime starts ``--workers`` processes, each with a helper of
its own, and never cleans them up itself. The tests count that tree with
psutil while it runs, stop ``sglang serve`` and check every process is gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped]
import pytest

from sglang.cli.serve import GRACE_SECONDS
from tests.integration.serve_support import EXAMPLE, backend, example_site, make_site
from tests.support.isolation import clean_environment

WORKERS = 2
TREE = 2 * WORKERS  # each worker has one helper


def start_serve(path: list[Path], *argv: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in path)
    code = f"from sglang.cli.main import main; raise SystemExit(main({['serve', *argv]!r}))"
    return subprocess.Popen(
        [str(clean_environment().python), "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_tree(proc: subprocess.Popen[str], size: int, timeout: float = 60) -> list[int]:
    """The pids of *proc*'s descendants once there are *size* of them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        children = psutil.Process(proc.pid).children(recursive=True)
        if len(children) >= size:
            return [child.pid for child in children]
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the tree never reached {size} processes: {proc.communicate()}")


def alive(pids: list[int]) -> list[int]:
    def running(pid: int) -> bool:
        try:
            return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:
            return False

    return [pid for pid in pids if running(pid)]


def finish(proc: subprocess.Popen[str], timeout: float = 30) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, out, err


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    model = tmp_path / "model"
    model.mkdir()
    (model / "my_runtime.json").write_text('{"layers": 2}', encoding="utf-8")
    return model


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_whole_tree(
    tmp_path: Path, model_dir: Path, signum: int, code: int
) -> None:
    proc = start_serve([example_site(tmp_path).root, EXAMPLE], str(model_dir), "--workers", "2")
    pids = wait_for_tree(proc, TREE)
    assert len(pids) == TREE
    proc.send_signal(signum)
    returncode, out, err = finish(proc)
    assert returncode == code, err
    assert alive(pids) == []
    assert "my_runtime:" in out  # auto-detected from my_runtime.json


def test_a_normal_return_ends_the_tree(tmp_path: Path, model_dir: Path) -> None:
    ready = tmp_path / "ready.json"
    proc = start_serve(
        [example_site(tmp_path).root, EXAMPLE],
        str(model_dir),
        "--serve-seconds",
        "1.5",
        "--ready-file",
        str(ready),
    )
    pids = wait_for_tree(proc, 2)
    returncode, _, err = finish(proc)
    assert returncode == 0, err
    assert json.loads(ready.read_text())[0] in pids
    assert alive(pids) == []


CRASH = textwrap.dedent(
    """
    import subprocess, sys, time
    from sglang.cli.serve_backends import ServeBackend

    def run(request):
        code = {child!r}
        subprocess.Popen([sys.executable, "-c", code])
        time.sleep(1.0)
        if "--crash" in request.argv:
            raise RuntimeError("backend crashed")

    def create():
        return ServeBackend(api_version=1, run=run, requires_model_path=False)
    """
)
SLEEPER = "import time; time.sleep(3600)"
STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"


def test_an_exception_ends_the_tree_and_fails(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("crash-dist", "crash", source=CRASH.format(child=SLEEPER)))
    proc = start_serve([site.root], "--model-type", "crash", "--crash")
    pids = wait_for_tree(proc, 1)
    returncode, _, err = finish(proc)
    assert returncode == 1
    assert "serve backend 'crash' (crash-dist 1.0) failed: RuntimeError: backend crashed" in err
    assert alive(pids) == []


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("stub-dist", "stub", source=CRASH.format(child=STUBBORN)))
    proc = start_serve([site.root], "--model-type", "stub")
    pids = wait_for_tree(proc, 1)
    time.sleep(0.3)  # let the child install its SIGTERM handler
    start = time.monotonic()
    returncode, _, err = finish(proc)
    assert returncode == 0, err
    assert alive(pids) == []
    assert time.monotonic() - start < GRACE_SECONDS + 5
