"""``examples/serve_backend`` installed for real into a temporary venv, then uninstalled.

Installing it adds its backend names to ``sglang serve`` and its own
``my-runtime`` command (never a second ``sglang`` script); ``my-runtime
serve`` and ``sglang serve --model-type my_runtime`` reach the same
function; uninstalling it takes the names away again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.serve_support import EXAMPLE
from tests.support.isolation import (
    clean_environment,
    make_venv,
    plugin_free_env,
    venv_site_packages,
)

PIP = ("-m", "pip", "--disable-pip-version-check")


def run(*argv: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        env=plugin_free_env(),
        timeout=300,
        check=False,
    )
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-example-venv")
    source = root / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "tests"))
    make_venv(root / "venv", clean_environment().view)
    return root


def python_of(venv: Path) -> Path:
    return venv / "venv" / "bin" / "python"


def serve_help(venv: Path) -> str:
    return run(python_of(venv), "-m", "sglang.cli.main", "serve", "--help").stdout


def backend_names(help_text: str) -> set[str]:
    section = help_text.split("entry points):", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0] for line in section.splitlines() if line.strip()}


def report(stdout: str) -> dict[str, object]:
    line = next(line for line in stdout.splitlines() if line.startswith("my_runtime: "))
    data: dict[str, object] = json.loads(line.removeprefix("my_runtime: "))
    return data


def test_install_and_uninstall_change_the_available_names(venv: Path, tmp_path: Path) -> None:
    python = python_of(venv)
    assert backend_names(serve_help(venv)) == {"auto", "llm", "diffusion"}
    pip_install = (*PIP, "install", "--no-deps", "--no-build-isolation", "--no-index", "--quiet")
    run(python, *pip_install, venv / "src")
    assert backend_names(serve_help(venv)) == {
        "auto",
        "llm",
        "diffusion",
        "my_runtime",
        "my_runtime_config",
    }
    # the example publishes my-runtime, and no second sglang script
    infos = list(venv_site_packages(venv / "venv").glob("my_sglang_runtime-*.dist-info"))
    assert len(infos) == 1
    record = (infos[0] / "RECORD").read_text(encoding="utf-8")
    assert "bin/my-runtime" in record
    assert "bin/sglang," not in record
    assert not (venv / "venv" / "bin" / "sglang").exists()

    model = tmp_path / "model"
    model.mkdir()
    (model / "my_runtime.json").write_text('{"layers": 4}', encoding="utf-8")
    args = (str(model), "--workers", "0", "--serve-seconds", "0", "--extra", "x")
    via_alias = report(run(venv / "venv" / "bin" / "my-runtime", "serve", *args).stdout)
    via_sglang = report(
        run(python, "-m", "sglang.cli.main", "serve", *args, "--model-type", "my_runtime").stdout
    )
    via_auto = report(run(python, "-m", "sglang.cli.main", "serve", *args).stdout)
    for data in (via_alias, via_sglang, via_auto):
        assert data["entry"] == "my_sglang_runtime.runtime.launch_runtime"
        assert data["argv"] == ["--model-path", str(model), *args[1:]]
        assert data["config"] == {"layers": 4}
        assert data["remaining"] == ["--extra", "x"]
    config = tmp_path / "runtime.json"
    config.write_text('{"layers": 1}', encoding="utf-8")
    config_only = run(
        python, "-m", "sglang.cli.main", "serve", "--model-type", "my_runtime_config",
        "--config", config, "--workers", "0", "--serve-seconds", "0",
    )  # fmt: skip
    assert report(config_only.stdout)["model_path"] is None

    run(python, *PIP, "uninstall", "--yes", "--quiet", "my-sglang-runtime")
    assert backend_names(serve_help(venv)) == {"auto", "llm", "diffusion"}
    gone = run(
        python, "-m", "sglang.cli.main", "serve", "m", "--model-type", "my_runtime", check=False
    )
    assert gone.returncode == 2
    assert "unknown serve backend 'my_runtime'" in gone.stderr
    assert not (venv / "venv" / "bin" / "my-runtime").exists()
