"""The ``sglang`` console script: ``--version`` and ``--help``."""

from __future__ import annotations

import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

import sglang
from sglang.cli.main import build_parser, main
from tests.support.isolation import clean_environment


def run_sglang(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script with *args* and no SGLANG_* variables.

    The script runs on the plugin-free interpreter, so installed plugins cannot change it.
    """
    script = Path(sysconfig.get_path("scripts")) / "sglang"
    assert script.exists(), f"console script missing at {script}; run `pip install -e .`"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    return subprocess.run(
        [str(clean_environment().python), str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_version_prints_the_distribution_version() -> None:
    proc = run_sglang("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"sglang {sglang.__version__}"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_zero(flag: str) -> None:
    proc = run_sglang(flag)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: sglang")
    assert "--version" in proc.stdout
    assert proc.stderr == ""


def test_no_command_prints_the_usage_and_exits_two() -> None:
    proc = run_sglang()
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("usage: sglang")
    assert "serve" in proc.stderr


def test_unknown_command_exits_two_with_usage() -> None:
    proc = run_sglang("no-such-command")
    assert proc.returncode == 2
    assert "usage: sglang" in proc.stderr


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: sglang" in capsys.readouterr().err
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"sglang {sglang.__version__}"
    with pytest.raises(SystemExit) as caught:  # argparse's action, when combined
        main(["--version", "plugins"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"sglang {sglang.__version__}"


def test_parser_prog_is_sglang() -> None:
    assert build_parser().prog == "sglang"
