"""The vendor path guide, as written: install, type-check, conformance, serve.

The commands are the bash blocks of ``docs/guides/vendor-path.rst``, run by
``bash`` in a fresh venv (sglang through the plugin-free view, the example
installed by pip) with an ``sglang`` console script first on ``PATH``.
What is substituted: pip installs offline (``--no-deps --no-build-isolation
--no-index``) from a copy of the example, the model folder is a temporary
one and the port a free one. The steps run in a folder of their own; the
conformance command runs from the repository root too, whose test
configuration must not hide the installed plugin from it. The setuptools
block (mypy on a strict editable install) runs on its own, from another
folder than the package's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support.dists import REPO_ROOT
from tests.support.examples import EXAMPLES, console_script, install_examples
from tests.support.isolation import clean_environment, make_venv, plugin_free_env
from tests.support.processes import HAS_PROC, free_port, run_script_in_session

GUIDE = REPO_ROOT / "docs" / "guides" / "vendor-path.rst"
OFFLINE = "python -m pip install --no-deps --no-build-isolation --no-index"


def _blocks() -> list[str]:
    """The guide's bash blocks, dedented."""
    text = GUIDE.read_text("utf-8")
    blocks = re.findall(r"\.\. code-block:: bash\n\n((?:      .*\n|\n)+)", text)
    return ["\n".join(line[6:] for line in block.rstrip().splitlines()) for block in blocks]


SETUPTOOLS = "editable_mode="
"""What tells the setuptools block from the steps."""


def _script(source: Path, model: Path, port: int) -> str:
    commands = "\n".join(block for block in _blocks() if SETUPTOOLS not in block)
    return (
        commands.replace(
            'python -m pip install -e "examples/demo_platform[dev]"',
            f'{OFFLINE} -e "{source}[dev]"',
        )
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


def test_the_dev_extra_brings_what_the_steps_run() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((EXAMPLES / "demo_platform" / "pyproject.toml").read_text("utf-8"))
    dev = project["project"]["optional-dependencies"]["dev"]
    names = {re.split(r"[\[<>=]", requirement)[0] for requirement in dev}
    assert {"sglang", "mypy", "pyright", "pytest", "hypothesis"} <= names
    assert "sglang[all]" in dev  # the serve step needs the compute and serving stack
    assert '"examples/demo_platform[dev]"' in GUIDE.read_text("utf-8")


def test_mypy_finds_a_setuptools_editable_install_from_any_folder(tmp_path: Path) -> None:
    (block,) = [block for block in _blocks() if SETUPTOOLS in block]
    source = tmp_path / "my_platform_plugin"
    shutil.copytree(
        EXAMPLES / "my_platform_plugin",
        source,
        ignore=shutil.ignore_patterns("build", "*.egg-info"),
    )
    python = make_venv(tmp_path / "venv", clean_environment().view)
    script = block.replace(
        "python -m pip install -e examples/my_platform_plugin", f"{OFFLINE} -e {source}"
    )
    assert str(source) in script
    elsewhere = tmp_path / "elsewhere"  # neither the package's folder nor its parent
    elsewhere.mkdir()
    path = os.pathsep.join([str(python.parent), os.environ["PATH"]])
    result = run_script_in_session(
        script, env={**plugin_free_env(), "PATH": path}, cwd=elsewhere, timeout=600
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "Success: no issues found in 3 source files" in result.stdout


@pytest.fixture(scope="module")
def demo_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv that sees sglang through the plugin-free view, with the demo pip-installed."""
    return install_examples(tmp_path_factory.mktemp("demo-venv"), "demo_platform")


@pytest.mark.parametrize("where", ["repository root", "another folder"])
def test_the_conformance_command_sees_installed_plugins_from_any_folder(
    demo_python: Path, tmp_path: Path, where: str
) -> None:
    """The repository's own test configuration hides installed plugins, but not from the suite."""
    (command,) = [block for block in _blocks() if "--sglang-conformance" in block]
    report = tmp_path / "conformance.json"
    command = command.replace("conformance.json", str(report))
    # the activation and contract levels are enough to see which plugin was tested
    command += ' -p no:cacheprovider -k "activation or contract"'
    cwd = REPO_ROOT if where == "repository root" else tmp_path
    path = os.pathsep.join([str(demo_python.parent), os.environ["PATH"]])
    result = run_script_in_session(
        command, env={**plugin_free_env(), "PATH": path}, cwd=cwd, timeout=600
    )
    output = result.stdout[-6000:] + result.stderr[-3000:]
    assert result.returncode == 0, output
    document = json.loads(report.read_text("utf-8"))
    assert document["plugin"]["distribution"] == "sglang-demo-platform", output
    assert document["summary"]["failed"] == 0, output
    assert document["summary"]["passed"] > 0, output
    assert "hidden from the tests" not in result.stdout  # the repository's header line
