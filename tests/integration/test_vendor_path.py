"""The vendor path guide, as written: install, type-check, conformance, serve.

The commands are the bash blocks of ``docs/guides/vendor-path.rst``, run by
``bash`` in a fresh venv (sglang through the plugin-free view, the example
installed by pip) with an ``sglang`` console script first on ``PATH``.
What is substituted: pip installs offline (``--no-deps --no-build-isolation
--no-index``) from a copy of the example, the model folder is a temporary
one and the port a free one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support.dists import REPO_ROOT
from tests.support.examples import EXAMPLES, console_script
from tests.support.isolation import clean_environment, make_venv, plugin_free_env
from tests.support.processes import HAS_PROC, free_port, run_script_in_session

GUIDE = REPO_ROOT / "docs" / "guides" / "vendor-path.rst"
OFFLINE = "python -m pip install --no-deps --no-build-isolation --no-index"


def _script(source: Path, model: Path, port: int) -> str:
    text = GUIDE.read_text("utf-8")
    blocks = re.findall(r"\.\. code-block:: bash\n\n((?:      .*\n|\n)+)", text)
    commands = "\n".join(
        "\n".join(line[6:] for line in block.rstrip().splitlines()) for block in blocks
    )
    return (
        commands.replace("python -m pip install -e examples/demo_platform", f"{OFFLINE} {source}")
        .replace("/tmp/tiny-llama", str(model))
        .replace("30000", str(port))
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="the guide uses curl")
@pytest.mark.skipif(not HAS_PROC, reason="job control needs a POSIX shell")
def test_the_vendor_path_runs_as_written(tmp_path: Path) -> None:
    source = tmp_path / "demo_platform"
    shutil.copytree(EXAMPLES / "demo_platform", source)
    python = make_venv(tmp_path / "venv", clean_environment().view)
    console_script(python.parent, python)
    port = free_port()
    script = "set -m\n" + _script(source, tmp_path / "tiny-llama", port)
    work = tmp_path / "work"  # "in any directory"
    work.mkdir()
    path = os.pathsep.join([str(python.parent), os.environ["PATH"]])
    result = run_script_in_session(
        script, env={**plugin_free_env(), "PATH": path}, cwd=work, timeout=900
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-6000:]
    assert "Success: no issues found" in result.stdout  # mypy
    report = json.loads((work / "conformance.json").read_text("utf-8"))
    assert report["plugin"]["distribution"] == "sglang-demo-platform"
    assert report["summary"]["failed"] == 0
    assert report["summary"]["passed"] > 0
    assert '"object":"text_completion"' in result.stdout  # curl's answer
    assert "Traceback" not in result.stderr
