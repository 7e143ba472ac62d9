"""Reference SRT runtime throughput on the CPU, as ratios measured in one run.

A ~35M-parameter random Llama (``make_model --size small``), 32 prompts,
128 new tokens each, greedy with ``ignore_eos``:

(a) continuous batching (all 32 requests in one ``generate`` call) against
    the same requests one at a time through the same engine (target >= 4x);
(b) our tokens per second against ``transformers`` ``generate`` on the same
    prompts, batched and left-padded (target >= 1.0x).

Run: ``python benchmarks/bench_engine.py [--prompts 32] [--new-tokens 128]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, print_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=128)
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
        ],
    )


if __name__ == "__main__":
    main()
