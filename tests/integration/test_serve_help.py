"""``sglang serve --help`` and ``--model-type NAME --help``: no process, no torch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration.serve_support import EXAMPLE, example_site, sglang


def _quiet(result_stdout: str) -> None:
    assert "TORCH False" in result_stdout
    assert "SPAWNED []" in result_stdout


def test_serve_help_lists_the_backends_with_their_distributions(tmp_path: Path) -> None:
    result = sglang(example_site(tmp_path), "serve", "--help", extra=(EXAMPLE,)).check()
    out = result.stdout
    assert out.startswith("usage: sglang serve [MODEL_PATH] [--model-type NAME]")
    lines = {
        line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and line.split()
    }
    assert "auto" in lines
    assert "in-tree" in lines["llm"]
    assert "in-tree" in lines["diffusion"]
    assert "my-sglang-runtime 0.1.0" in lines["my_runtime"]
    assert "my-sglang-runtime 0.1.0" in lines["my_runtime_config"]
    assert result.stderr == ""
    _quiet(out)
    assert "IMPORTED []" in out


def test_serve_help_ends_with_the_llm_options_on_one_screen() -> None:
    result = sglang(None, "serve", "--help").check()
    text = result.stdout.split("\nTORCH ")[0]
    backends, options = text.split("llm backend options and defaults")
    assert "serve backends" in backends
    entries = set(re.split(r"\s{2,}", options.split(":", 1)[1].strip()))
    assert {"--tp-size 1", "--port 30000", "--dtype auto"} <= entries
    assert "--disable-cuda-graph" in entries  # a switch: no value
    assert "--mem-fraction-static -" in entries  # decided at start
    assert len(text.splitlines()) <= 40
    assert max(len(line) for line in text.splitlines()) <= 80
    _quiet(result.stdout)


@pytest.mark.parametrize("argv", [["--help"], ["some/model", "-h"]])
def test_auto_help_is_the_serve_help(argv: list[str]) -> None:
    result = sglang(None, "serve", *argv).check()
    assert "serve backends" in result.stdout
    _quiet(result.stdout)


def test_backend_help_goes_to_the_backend_even_when_it_needs_a_model_path(tmp_path: Path) -> None:
    result = sglang(
        example_site(tmp_path), "serve", "--model-type", "my_runtime", "--help", extra=(EXAMPLE,)
    ).check()
    assert "Serve a model with my_runtime." in result.stdout
    assert "--workers" in result.stdout
    _quiet(result.stdout)


def test_llm_help_prints_the_server_arguments_without_torch() -> None:
    result = sglang(None, "serve", "--model-type", "llm", "--help").check()
    assert "usage: sglang serve [-h] [--model-path MODEL_PATH]" in result.stdout
    assert "--tp-size" in result.stdout
    _quiet(result.stdout)


def test_diffusion_help_prints_the_server_arguments_without_torch() -> None:
    result = sglang(None, "serve", "--model-type", "diffusion", "--help").check()
    assert "--sp-degree" in result.stdout
    _quiet(result.stdout)


def test_top_level_help_names_serve() -> None:
    result = sglang(None, "--help").check()
    assert "serve" in result.stdout
