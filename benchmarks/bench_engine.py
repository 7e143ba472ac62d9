"""Reference SRT runtime throughput on the CPU, as ratios measured in one run.

A ~35M-parameter random Llama (``make_model --size small``), 32 prompts,
128 new tokens each, greedy with ``ignore_eos``:

(a) continuous batching (all 32 requests in one ``generate`` call) against
    the same requests one at a time through the same engine (target >= 4x);
(b) our tokens per second against ``transformers`` ``generate`` on the same
    prompts, batched and left-padded (target >= 1.0x);
(c) structured output: the same prompts sampled under a JSON schema
    against the same sampled requests without it, in tokens per second
    (target >= 0.8x);
(d) logprobs: the batched greedy requests with ``top_logprobs_num`` 5
    against the same without logprobs (target >= 0.9x).

Run: ``python benchmarks/bench_engine.py [--prompts 32] [--new-tokens 128]
[--sampling-only]`` (``--sampling-only``: (c) and (d) alone).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, print_table

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z ]{8,40}$"},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "tags": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[a-z]{3,12}$"},
            "minItems": 2,
            "maxItems": 5,
        },
    },
    "required": ["name", "age", "tags"],
    "additionalProperties": False,
}
"""The structured-output workload's schema: bounded strings, so every answer completes."""


REPEATS = 3
"""Runs of each sampling workload; the best of each is reported."""


def _rate(engine: Any, prompts: list[str], params: Any, **extra: Any) -> tuple[float, float]:
    """``(seconds, generated tokens per second)`` of one batched ``generate`` call."""
    start = time.perf_counter()
    outputs = engine.generate(prompts, params, **extra)
    seconds = time.perf_counter() - start
    return seconds, sum(len(o["output_ids"]) for o in outputs) / seconds


def sampling_rows(engine: Any, prompts: list[str], new_tokens: int) -> list[list[str]]:
    """Rows (c) and (d): structured output and logprobs against the same requests without."""
    sampled = [{"temperature": 0.8, "seed": i, "max_new_tokens": new_tokens} for i in range(32)]
    sampled = sampled * (len(prompts) // 32 + 1)
    plain_params = [{**p, "ignore_eos": True} for p in sampled[: len(prompts)]]
    schema = json.dumps(SCHEMA)
    json_params = [{**p, "json_schema": schema} for p in sampled[: len(prompts)]]
    engine.generate(prompts[:2], json_params[:2])  # warm up: compile the grammar once
    greedy = {"temperature": 0, "max_new_tokens": new_tokens, "ignore_eos": True}
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "json": [], "greedy": [], "top": []}
    for _ in range(REPEATS):  # interleaved, best of each: a shared machine's load is uneven
        runs["plain"].append(_rate(engine, prompts, plain_params))
        runs["json"].append(_rate(engine, prompts, json_params))
        runs["greedy"].append(_rate(engine, prompts, greedy))
        runs["top"].append(_rate(engine, prompts, greedy, return_logprob=True, top_logprobs_num=5))
    (t_plain, r_plain), (t_json, r_json), (t_greedy, r_greedy), (t_top, r_top) = (
        max(runs[k], key=lambda run: run[1]) for k in ("plain", "json", "greedy", "top")
    )
    return [
        ["sampled, no grammar", f"{t_plain:.2f}", f"{r_plain:.0f}", "1.00x"],
        ["sampled, JSON schema", f"{t_json:.2f}", f"{r_json:.0f}", f"{r_json / r_plain:.2f}x"],
        ["greedy, no logprobs", f"{t_greedy:.2f}", f"{r_greedy:.0f}", "1.00x"],
        ["greedy, top_logprobs 5", f"{t_top:.2f}", f"{r_top:.0f}", f"{r_top / r_greedy:.2f}x"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--sampling-only", action="store_true", help="run (c) and (d) only")
    args = parser.parse_args()
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")

    import torch
    from transformers import AutoModelForCausalLM

    from sglang import Engine
    from sglang.testing.make_model import SIZES, make_model

    torch.manual_seed(0)
    model = make_model(Path(tempfile.mkdtemp()) / "small", SIZES["small"])
    params = {"temperature": 0, "max_new_tokens": args.new_tokens, "ignore_eos": True}
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "the",
        "lazy",
        "dog",
        "hello",
        "world",
    ]
    prompts = [" ".join(words[: 3 + i % 8] * (1 + i % 3)) for i in range(args.prompts)]
    total = args.prompts * args.new_tokens

    with Engine(model_path=str(model), max_running_requests=args.prompts) as engine:
        engine.generate(prompts[:2], {**params, "max_new_tokens": 4})  # warm up
        sampling = sampling_rows(engine, prompts, args.new_tokens)
        if args.sampling_only:
            print(machine(), f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
            print_table(["run", "seconds", "tokens/s", "ratio"], sampling)
            return
        start = time.perf_counter()
        batched = engine.generate(prompts, params)
        t_batched = time.perf_counter() - start
        start = time.perf_counter()
        for prompt in prompts:
            engine.generate(prompt, params)
        t_serial = time.perf_counter() - start
        ids = [engine.tokenizer.encode(p) for p in prompts]
    assert all(len(o["output_ids"]) == args.new_tokens for o in batched)

    hf: Any = AutoModelForCausalLM.from_pretrained(str(model), dtype=torch.float32)
    hf.eval()
    width = max(len(i) for i in ids)
    pad = 0
    input_ids = torch.tensor([[pad] * (width - len(i)) + i for i in ids])
    mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])
    with torch.inference_mode():
        hf.generate(input_ids=input_ids[:2], attention_mask=mask[:2], max_new_tokens=4)
        start = time.perf_counter()
        hf.generate(
            input_ids=input_ids,
            attention_mask=mask,
            max_new_tokens=args.new_tokens,
            min_new_tokens=args.new_tokens,
            do_sample=False,
            pad_token_id=pad,
        )
        t_hf = time.perf_counter() - start

    print(machine(), f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    print(f"{args.prompts} prompts x {args.new_tokens} new tokens, ~35M-parameter Llama, float32")
    print_table(
        ["run", "seconds", "tokens/s", "ratio"],
        [
            ["our engine, one at a time", f"{t_serial:.2f}", f"{total / t_serial:.0f}", "1.00x"],
            [
                "our engine, continuous batching",
                f"{t_batched:.2f}",
                f"{total / t_batched:.0f}",
                f"{t_serial / t_batched:.2f}x vs one at a time",
            ],
            ["transformers generate (batched)", f"{t_hf:.2f}", f"{total / t_hf:.0f}", "1.00x"],
            [
                "our engine, continuous batching",
                f"{t_batched:.2f}",
                f"{total / t_batched:.0f}",
                f"{t_hf / t_batched:.2f}x vs transformers",
            ],
            *sampling,
        ],
    )


if __name__ == "__main__":
    main()
