"""The demo out-of-tree platform drives a whole generation through its own pieces.

Its KV pool, attention backend and fused-op registrations count their use in
the scheduler process; the counts prove the runtime took them from the
platform, and the tokens equal the built-in CPU platform's.
"""

from __future__ import annotations

import json
from pathlib import Path

from sglang.testing.make_model import make_model
from tests.support.dists import REPO_ROOT, Site, run_python
from tests.support.examples import example_dist

DEMO_SOURCE = REPO_ROOT / "examples" / "demo_platform"

GENERATE = """
import os
from sglang.srt.entrypoints.engine import Engine
if __name__ == "__main__":
    with Engine(model_path={model!r}, max_total_tokens=256) as engine:
        out = engine.generate(["Hello world", "fox"], {{"temperature": 0, "max_new_tokens": 6}})
        print("IDS", [o["output_ids"] for o in out])
    print("PARENT", os.getpid())
"""


def _ids(stdout: str) -> str:
    return stdout.split("IDS ")[1].splitlines()[0]


def test_the_demo_platform_runs_its_own_kv_pool_attention_and_ops(tmp_path: Path) -> None:
    model = make_model(tmp_path / "llama", arch="llama")
    counters = tmp_path / "counters.jsonl"
    site = Site(tmp_path / "site")
    site.install(example_dist("demo_platform"))  # its platforms and its own general plugin
    code = GENERATE.format(model=str(model))
    demo = run_python(
        code,
        path=[site.root, DEMO_SOURCE],
        env={"SGLANG_PLATFORM": "demo", "SGLANG_DEMO_COUNTERS": str(counters)},
    ).check()
    cpu = run_python(code, env={"SGLANG_USE_CPU_ENGINE": "1"}).check()
    assert _ids(demo.stdout) == _ids(cpu.stdout)
    parent = int(demo.stdout.split("PARENT ")[1])
    (record,) = [json.loads(line) for line in counters.read_text().splitlines()]
    assert record.pop("pid") != parent  # counted in the scheduler process
    assert all(count > 0 for count in record.values()), record
