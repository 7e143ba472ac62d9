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
import socket
from pathlib import Path

import pytest

from tests.support.dists import REPO_ROOT
from tests.support.examples import console_script
from tests.support.isolation import clean_environment, plugin_free_env
from tests.support.processes import HAS_PROC, free_port, run_script_in_session

README = REPO_ROOT / "README.md"
MODEL = "/tmp/tiny-llama"


def _blocks() -> list[str]:
    found: list[str] = re.findall(r"```bash\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    return found


@pytest.mark.skipif(shutil.which("curl") is None, reason="the quick start uses curl")
@pytest.mark.skipif(not HAS_PROC, reason="job control needs a POSIX shell")
def test_the_operator_quick_start_serves_and_answers(tmp_path: Path) -> None:
    make = next(line for block in _blocks() for line in block.splitlines() if "make_model" in line)
    (serve,) = [block for block in _blocks() if "sglang serve" in block]
    model, port = str(tmp_path / "tiny-llama"), str(free_port())
    script = "set -m\n" + "\n".join([make, serve]).replace(MODEL, model).replace("30000", port)
    python = clean_environment().python
    bin_dir = tmp_path / "bin"
    console_script(bin_dir, python)
    path = os.pathsep.join([str(bin_dir), str(python.parent), os.environ["PATH"]])
    result = run_script_in_session(
        script, env={**plugin_free_env(), "PATH": path}, cwd=tmp_path, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"object":"text_completion"' in result.stdout  # curl's answer
    assert '"completion_tokens":8' in result.stdout
    assert "Shutting down" in result.stderr  # Ctrl-C stopped the server cleanly
    assert "Traceback" not in result.stderr
    with socket.socket() as sock:  # nothing listens any more
        assert sock.connect_ex(("127.0.0.1", int(port))) != 0
