"""Two "nodes" on 127.0.0.1 (``--nnodes 2``, one rank each) give the tokens of TP=1.

Node 1 is a separate interpreter running ``Engine(..., node_rank=1)``: it
starts only its scheduler rank (no tokenizer front) and blocks until node 0
shuts the group down. Node 0 runs ``Engine(..., node_rank=0)``, generates
greedily, then compares with a TP=1 engine on the same prompts. The ranks
meet at ``--dist-init-addr`` over gloo.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from sglang.testing.make_model import make_model
from tests.support.dists import REPO_ROOT, run_python
from tests.support.isolation import clean_environment
from tests.support.processes import free_port

NODE = """
from sglang.srt.entrypoints.engine import Engine
if __name__ == "__main__":
    engine = Engine(model_path={model!r}, tp_size=2, nnodes=2, node_rank=1,
                    dist_init_addr={addr!r}, max_total_tokens=256)
    print("NODE1 RETURNED", hasattr(engine, "tokenizer"), flush=True)
    engine.shutdown()
"""

LEADER = """
import json
from sglang.srt.entrypoints.engine import Engine
prompts = ["Hello world", "the quick brown fox", "a"]
params = {{"temperature": 0, "max_new_tokens": 12, "ignore_eos": True}}
if __name__ == "__main__":
    with Engine(model_path={model!r}, tp_size=2, nnodes=2, node_rank=0,
                dist_init_addr={addr!r}, max_total_tokens=256) as engine:
        two_nodes = [o["output_ids"] for o in engine.generate(prompts, params)]
    with Engine(model_path={model!r}, max_total_tokens=256) as engine:
        single = [o["output_ids"] for o in engine.generate(prompts, params)]
    print("RESULT " + json.dumps({{"two_nodes": two_nodes, "single": single}}))
"""


def test_two_nodes_match_one_rank(tmp_path: Path) -> None:
    model = str(make_model(tmp_path / "m", arch="llama"))
    addr = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env |= {"SGLANG_USE_CPU_ENGINE": "1", "PYTHONPATH": str(REPO_ROOT)}
    node1 = subprocess.Popen(
        [str(clean_environment().python), "-c", NODE.format(model=model, addr=addr)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        leader = run_python(
            LEADER.format(model=model, addr=addr),
            path=[REPO_ROOT],
            env={"SGLANG_USE_CPU_ENGINE": "1"},
            timeout=300,
        ).check()
        out, err = node1.communicate(timeout=60)
    finally:
        if node1.poll() is None:
            node1.kill()
            node1.communicate()
    assert node1.returncode == 0, err
    assert "NODE1 RETURNED False" in out  # node 1 has no tokenizer front
    line = next(x for x in leader.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line.removeprefix("RESULT "))
    assert result["two_nodes"] == result["single"]
    assert all(len(ids) == 12 for ids in result["single"])
