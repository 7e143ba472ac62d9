"""``python -m sglang.bench_serving`` against a real server, with each backend.

The command runs as a user runs it (a fresh interpreter, the API key in
``OPENAI_API_KEY``, the model and tokenizer found through ``GET /v1/models``)
under ``-X importtime``, which also shows that it imports neither torch nor numpy.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.http.conftest import API_KEY
from tests.http.server import ServerProcess
from tests.support.dists import suite_env
from tests.support.guides import blocks
from tests.support.isolation import clean_environment

PAGE = 4  # the server fixture's --page-size


def bench(server: ServerProcess, out: Path, *args: str) -> tuple[dict[str, Any], str]:
    """Run the command against *server*; return its JSON line and what it printed."""
    env = {**suite_env(), "OPENAI_API_KEY": API_KEY}
    command = [str(clean_environment().python), "-X", "importtime", "-m", "sglang.bench_serving"]
    command += ["--base-url", server.url, "--output-file", str(out), "--output-details"]
    command += ["--disable-tqdm", "--seed", "3", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    report = done.stderr.splitlines()
    errors = "\n".join(line for line in report if "import time" not in line)
    assert done.returncode == 0, f"{done.stdout}\n{errors}"
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in report if "|" in line}
    assert "httpx" in imported
    assert not imported & {"torch", "numpy"}, "the benchmark client imported torch or numpy"
    (line,) = out.read_text().splitlines()
    return json.loads(line), done.stdout


def test_native_backend_on_random_prompts_at_a_poisson_rate(
    server: ServerProcess, tmp_path: Path
) -> None:
    result, printed = bench(
        server,
        tmp_path / "native.jsonl",
        *("--backend", "sglang", "--dataset-name", "random", "--num-prompts", "6"),
        *("--random-input-len", "24", "--random-output-len", "6", "--random-range-ratio", "0.5"),
        *("--request-rate", "40"),
    )
    assert "Successful requests:                     6" in printed
    assert "Median TTFT (ms):" in printed
    assert (result["backend"], result["dataset_name"], result["request_rate"]) == (
        "sglang",
        "random",
        40.0,
    )
    details = result["details"]
    assert (result["completed"], result["failed"], len(details)) == (6, 0, 6)
    assert all(12 <= d["prompt_len"] <= 24 and 3 <= d["output_len"] <= 6 for d in details)
    assert result["total_input_tokens"] == sum(d["prompt_len"] for d in details)
    assert result["total_output_tokens"] == sum(d["output_len"] for d in details)
    assert all(len(d["itl"]) == d["output_len"] - 1 for d in details)
    assert all(d["ttft"] > 0 and d["error"] == "" for d in details)
    # the warm-up sent the first prompt, so its whole pages are cached; the others share nothing
    first = details[0]["prompt_len"]
    assert details[0]["cached_tokens"] == (first - 1) // PAGE * PAGE
    assert result["output_throughput"] > 0
    assert result["p99_itl_ms"] >= result["median_itl_ms"] > 0


def test_openai_backend_on_shared_prefixes_reports_cache_hits(
    server: ServerProcess, tmp_path: Path
) -> None:
    result, printed = bench(
        server,
        tmp_path / "oai.jsonl",
        *("--backend", "sglang-oai", "--dataset-name", "generated-shared-prefix"),
        *("--gsp-num-groups", "2", "--gsp-prompts-per-group", "3"),
        *("--gsp-system-prompt-len", "48", "--gsp-question-len", "4", "--gsp-output-len", "5"),
        "--flush-cache",
    )
    details = result["details"]
    assert (result["completed"], result["failed"]) == (6, 0)
    assert all(d["prompt_len"] == 52 and d["output_len"] == 5 for d in details)
    assert result["total_input_tokens"] == 6 * 52
    # the warm-up's pages were flushed: each group computes its system prompt once
    cached = sorted(d["cached_tokens"] for d in details)
    assert cached == [0, 0, 48, 48, 48, 48], cached
    assert result["cache_hit_rate"] == pytest.approx(4 * 48 / (6 * 52))
    assert "Cache hit rate:                          61.54%" in printed


def test_the_http_guide_command_runs_as_written(server: ServerProcess, tmp_path: Path) -> None:
    """The ``bench_serving`` block of ``guides/serving-http.rst``, on this port, with this key."""
    (block,) = [
        b
        for b in blocks("bash")
        if b.page == "guides/serving-http.rst" and "sglang.bench_serving" in b.code
    ]
    python = str(clean_environment().python)
    code = block.code.replace("30000", str(server.port)).replace("=KEY ", f"={API_KEY} ")
    code = code.replace("python -m", f"{python} -m")
    done = subprocess.run(
        ["bash", "-euc", code], cwd=tmp_path, env=suite_env(), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Cache hit rate:                          66.67%" in done.stdout
    (line,) = (tmp_path / "results.jsonl").read_text().splitlines()
    result = json.loads(line)
    assert (result["completed"], result["total_input_tokens"]) == (8, 1152)
    assert (result["total_output_tokens"], result["total_cached_tokens"]) == (64, 768)
