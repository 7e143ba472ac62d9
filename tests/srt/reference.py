"""Run the reference runtime and transformers on checkpoints; print JSON.

Run in a fresh interpreter with ``SGLANG_USE_CPU_ENGINE=1`` (the tests do)::

    python -m tests.srt.reference MAX_NEW_TOKENS PROMPTS_JSON MODEL_DIR...
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch


def hf_greedy(model: Any, prompt: list[int], max_new_tokens: int) -> tuple[list[int], list[float]]:
    """Greedy decoding with transformers, recomputing the whole sequence each step."""
    ids, logprobs = list(prompt), []
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits = model(torch.tensor([ids])).logits[0, -1].float()
            row = torch.log_softmax(logits, dim=-1)
            token = int(row.argmax())
            ids.append(token)
            logprobs.append(float(row[token]))
    return ids[len(prompt) :], logprobs


def compare(path: str, max_new_tokens: int, prompts: list[list[int]]) -> dict[str, Any]:
    """Generate with both runtimes on the checkpoint in *path*."""
    from transformers import AutoModelForCausalLM

    from sglang.srt.model_executor.model_runner import ModelRunner

    runner = ModelRunner(path, max_total_tokens=1024, page_size=4)
    batch = runner.generate_greedy(prompts, max_new_tokens)
    alone = [runner.generate_greedy([p], max_new_tokens)[0] for p in prompts]
    hf_model: Any = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    hf_model.eval()
    reference = [hf_greedy(hf_model, p, max_new_tokens) for p in prompts]
    return {
        "batch_ids": [o.output_ids for o in batch],
        "batch_logprobs": [o.logprobs for o in batch],
        "alone_ids": [o.output_ids for o in alone],
        "hf_ids": [r[0] for r in reference],
        "hf_logprobs": [r[1] for r in reference],
        "free_pages": runner.allocator.available_pages(),
        "num_pages": runner.allocator.num_pages,
        "model_cls": type(runner.model).__name__,
        "pool_cls": type(runner.kv_pool).__name__,
        "backend_cls": type(runner.attn_backend).__name__,
        "packed_weights": sum(
            getattr(getattr(m, "quant_method", m), "packed_weight", None) is not None
            for m in runner.model.modules()
        ),
    }


def main() -> None:
    """Compare every model directory of the command line; print one JSON line."""
    max_new_tokens, prompts = int(sys.argv[1]), json.loads(sys.argv[2])
    results: dict[str, Any] = {
        path: compare(path, max_new_tokens, prompts) for path in sys.argv[3:]
    }
    from sglang.srt.model_executor.model_runner import ModelRunner

    half = ModelRunner(sys.argv[3], dtype=torch.bfloat16, max_total_tokens=64)
    results["bfloat16"] = {
        "weights": sorted({str(p.dtype) for p in half.model.parameters()}),
        "kv": str(half.kv_pool.get_kv_buffer(0)[0].dtype),
        "tokens": len(half.generate_greedy(prompts[:1], 2)[0].output_ids),
    }
    print("RESULT " + json.dumps(results))


if __name__ == "__main__":
    main()
