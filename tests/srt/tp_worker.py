"""TP=1 against TP=2 (two spawned ranks over gloo) on one checkpoint; prints JSON.

Run in a fresh interpreter with ``SGLANG_USE_CPU_ENGINE=1``: the parent
generates with TP=1, then two spawned ranks initialise ``torch.distributed``
with ``current_platform.get_torch_distributed_backend_str()`` on a free
127.0.0.1 port and generate with TP=2.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.processes import free_port

PROMPTS = [[5, 6, 7, 8, 9, 10], [20, 21]]
MAX_NEW_TOKENS = 12


def rank_main(rank: int, port: int, path: str, queue: Any) -> None:
    """One TP rank: join the group, generate, report ``(rank, ids, logprobs)``."""
    import torch.distributed as dist

    from sglang.srt.distributed import TensorParallel
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.platforms import current_platform

    dist.init_process_group(
        current_platform.get_torch_distributed_backend_str(),
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=2,
    )
    try:
        runner = ModelRunner(path, max_total_tokens=256, page_size=4, tp=TensorParallel(rank, 2))
        out = runner.generate_greedy(PROMPTS, MAX_NEW_TOKENS)
        queue.put((rank, [o.output_ids for o in out], [o.logprobs for o in out]))
    finally:
        dist.destroy_process_group()


def main(path: str) -> None:
    """Print TP=1 and both TP=2 ranks' results as one JSON line."""
    import multiprocessing

    from sglang.srt.model_executor.model_runner import ModelRunner

    single = ModelRunner(path, max_total_tokens=256, page_size=4).generate_greedy(
        PROMPTS, MAX_NEW_TOKENS
    )
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    port = free_port()
    ranks = [ctx.Process(target=rank_main, args=(r, port, path, queue)) for r in range(2)]
    for process in ranks:
        process.start()
    results = sorted(queue.get(timeout=120) for _ in ranks)
    for process in ranks:
        process.join(timeout=60)
    print(
        "RESULT "
        + json.dumps(
            {
                "tp1_ids": [o.output_ids for o in single],
                "tp1_logprobs": [o.logprobs for o in single],
                "tp2": [{"ids": ids, "logprobs": lps} for _, ids, lps in results],
                "exitcodes": [p.exitcode for p in ranks],
            }
        )
    )
