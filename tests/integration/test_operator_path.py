"""The README's operator quick start, as written: make the model, serve it, ask it, stop it.

The commands are the README's own bash blocks, run by ``bash`` with the
plugin-free interpreter and an ``sglang`` console script first on ``PATH``.
Two things are substituted: the model folder (``/tmp/tiny-llama`` becomes a
temporary one) and the port (30000 becomes a free one), so that runs in
parallel cannot collide.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.dists import REPO_ROOT
from tests.support.examples import console_script
from tests.support.isolation import clean_environment, plugin_free_env
from tests.support.processes import HAS_PROC

README = REPO_ROOT / "README.md"
MODEL = "/tmp/tiny-llama"


def _blocks() -> list[str]:
    found: list[str] = re.findall(r"```bash\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(shutil.which("curl") is None, reason="the quick start uses curl")
@pytest.mark.skipif(not HAS_PROC, reason="job control needs a POSIX shell")
def test_the_operator_quick_start_serves_and_answers(tmp_path: Path) -> None:
    make = next(line for block in _blocks() for line in block.splitlines() if "make_model" in line)
    (serve,) = [block for block in _blocks() if "sglang serve" in block]
    model, port = str(tmp_path / "tiny-llama"), str(_free_port())
    script = "set -m\n" + "\n".join([make, serve]).replace(MODEL, model).replace("30000", port)
    python = clean_environment().python
    bin_dir = tmp_path / "bin"
    console_script(bin_dir, python)
    path = os.pathsep.join([str(bin_dir), str(python.parent), os.environ["PATH"]])
    # a session of its own, so that a run that hangs is stopped with its server
    proc = subprocess.Popen(
        ["bash", "-euc", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**plugin_free_env(), "PATH": path},
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the quick start did not finish:\n{stdout}\n{stderr}")
    result = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"object":"text_completion"' in result.stdout  # curl's answer
    assert '"completion_tokens":8' in result.stdout
    assert "Shutting down" in result.stderr  # Ctrl-C stopped the server cleanly
    assert "Traceback" not in result.stderr
    with socket.socket() as sock:  # nothing listens any more
        assert sock.connect_ex(("127.0.0.1", int(port))) != 0
