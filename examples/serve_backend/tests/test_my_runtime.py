"""The example backend's own tests: detection, help, and both commands end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from my_sglang_runtime import CONFIG_FILE
from my_sglang_runtime.sglang_backend import create_backend, create_config_backend, detect

from sglang.cli.serve_backends import ServeBackend, ServeBackendDetection, ServeRequest

EXAMPLE = Path(__file__).resolve().parents[1]


@pytest.fixture
def model(tmp_path: Path) -> Path:
    (tmp_path / CONFIG_FILE).write_text('{"layers": 3}', encoding="utf-8")
    return tmp_path


def test_detector_verdicts(model: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert detect(ServeRequest(argv=())) is ServeBackendDetection.UNKNOWN
    assert detect(ServeRequest(argv=(), model_path=str(model))) is ServeBackendDetection.MATCH
    assert detect(ServeRequest(argv=(), model_path=str(other))) is ServeBackendDetection.NO_MATCH


def test_factories_declare_a_literal_api_version() -> None:
    for factory in (create_backend, create_config_backend):
        backend = factory()
        assert isinstance(backend, ServeBackend)
        assert backend.api_version == 1
    assert create_backend().requires_model_path is True
    assert create_config_backend().requires_model_path is False
    assert create_config_backend().detect is None


def command(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(EXAMPLE), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.run(
        [sys.executable, "-m", "my_sglang_runtime.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_my_runtime_serve_help_starts_nothing() -> None:
    proc = command("serve", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--workers" in proc.stdout
    assert "my_runtime:" not in proc.stdout


def test_my_runtime_serve_runs_the_backend(model: Path) -> None:
    proc = command("serve", str(model), "--workers", "1", "--serve-seconds", "0.2")
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("my_runtime: "))
    data = json.loads(line.removeprefix("my_runtime: "))
    assert data["argv"][:2] == ["--model-path", str(model)]
    assert data["config"] == {"layers": 3}


def test_my_runtime_serve_needs_a_model_path() -> None:
    proc = command("serve", "--workers", "1")
    assert proc.returncode == 2
    assert "requires_model_path=False" in proc.stderr
