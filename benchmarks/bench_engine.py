"""Reference SRT runtime throughput on the CPU, as ratios measured in one run.

Three workloads, float32:

``small``: a ~35M-parameter random Llama (``make_model --size small``),
32 prompts, 128 new tokens each, greedy with ``ignore_eos``:

(a) continuous batching (all 32 requests in one ``generate`` call) against
    the same requests one at a time through the same engine (target >= 4x);
(b) our tokens per second against ``transformers`` ``generate`` on the same
    prompts, batched and left-padded (target >= 1.0x).

``sampling``: the same model and prompts:

(c) structured output: the prompts sampled under a JSON schema against the
    same sampled requests without it, in tokens per second (target >= 0.8x);
(d) logprobs: the batched greedy requests with ``top_logprobs_num`` 5
    against the same without logprobs (target >= 0.9x).

``smollm2``: a random model of SmolLM2-135M-Instruct's geometry
(``make_model --size smollm2-135m``: 30 layers, hidden 576, 9 query / 3
key-value heads, a 49152-token vocabulary, tied embeddings), 16 prompts of
mixed lengths (20 to 300 tokens) x 64 greedy new tokens:

(e) our tokens per second against batched, left-padded ``transformers``
    ``generate`` with the same ``max_new_tokens`` (target >= 1.3x), the two
    taking turns ``--rounds`` times (the median round of each counts);
(f) where a prefill step and a decode step of the engine spend their time
    (the same workload through an in-process scheduler, with timers around
    each component: see ``_timesplit.py``).

Run: ``python benchmarks/bench_engine.py [--workload small|sampling|smollm2|all]
[--prompts 32] [--new-tokens 128] [--threads N] [--rounds 3]
[--chunked-prefill-size N]``. ``--threads`` sets ``OMP_NUM_THREADS`` for
the engine's scheduler process and ``torch.set_num_threads`` here, so both
sides use the same number of threads (the default: torch's, one per core).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import machine, print_table

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "hello", "world"]

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


def hf_generate(
    model: Path, ids: Sequence[Sequence[int]], new_tokens: int, rounds: int
) -> list[float]:
    """Seconds of each of *rounds* batched, left-padded ``transformers`` ``generate`` calls."""
    import torch
    from transformers import AutoModelForCausalLM

    hf: Any = AutoModelForCausalLM.from_pretrained(str(model), dtype=torch.float32)
    hf.eval()
    width = max(len(i) for i in ids)
    pad = 0
    input_ids = torch.tensor([[pad] * (width - len(i)) + list(i) for i in ids])
    mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in ids])
    seconds = []
    with torch.inference_mode():
        hf.generate(input_ids=input_ids[:2], attention_mask=mask[:2], max_new_tokens=4)
        for _ in range(rounds):
            start = time.perf_counter()
            out = hf.generate(
                input_ids=input_ids,
                attention_mask=mask,
                max_new_tokens=new_tokens,
                min_new_tokens=new_tokens,
                do_sample=False,
                pad_token_id=pad,
            )
            seconds.append(time.perf_counter() - start)
            assert out.shape[1] == width + new_tokens
    return seconds


def small(args: argparse.Namespace) -> None:
    """Workload ``small``: continuous batching, and the ratio to ``transformers``."""
    import torch

    from sglang import Engine
    from sglang.testing.make_model import SIZES, make_model

    torch.manual_seed(0)
    model = make_model(Path(tempfile.mkdtemp()) / "small", SIZES["small"])
    params = {"temperature": 0, "max_new_tokens": args.new_tokens, "ignore_eos": True}
    prompts = [" ".join(WORDS[: 3 + i % 8] * (1 + i % 3)) for i in range(args.prompts)]
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
    (t_hf,) = hf_generate(model, ids, args.new_tokens, 1)

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


def sampling(args: argparse.Namespace) -> None:
    """Workload ``sampling``: structured output and logprobs against the same requests without."""
    import torch

    from sglang import Engine
    from sglang.testing.make_model import SIZES, make_model

    torch.manual_seed(0)
    model = make_model(Path(tempfile.mkdtemp()) / "small", SIZES["small"])
    prompts = [" ".join(WORDS[: 3 + i % 8] * (1 + i % 3)) for i in range(args.prompts)]
    with Engine(model_path=str(model), max_running_requests=args.prompts) as engine:
        warm = {"temperature": 0, "max_new_tokens": 4}
        engine.generate(prompts[:2], warm)
        rows = sampling_rows(engine, prompts, args.new_tokens)
    print(f"{args.prompts} prompts x {args.new_tokens} new tokens, ~35M-parameter Llama, float32")
    print_table(["run", "seconds", "tokens/s", "ratio"], rows)


def mixed_prompts(count: int, shortest: int, longest: int, vocab: int) -> list[list[int]]:
    """*count* prompts of random token ids, their lengths spread evenly over the range, shuffled."""
    rng = random.Random(0)
    lengths = [shortest + (longest - shortest) * i // max(1, count - 1) for i in range(count)]
    rng.shuffle(lengths)
    return [[rng.randrange(4, vocab) for _ in range(n)] for n in lengths]  # 0-3: special


def smollm2(args: argparse.Namespace) -> None:
    """Workload ``smollm2``: the ratio to ``transformers`` and the time split of a step."""
    from _timesplit import COMPONENTS, time_split

    from sglang import Engine
    from sglang.srt.hf_tokenizer import HFTokenizer
    from sglang.testing.make_model import SIZES, make_model

    model = make_model(Path(tempfile.mkdtemp()) / "smollm2", SIZES["smollm2-135m"])
    vocab = HFTokenizer.from_pretrained(str(model)).vocab_size
    count, new_tokens = 16, 64
    ids = mixed_prompts(count, 20, 300, vocab)
    params: dict[str, object] = {
        "temperature": 0,
        "max_new_tokens": new_tokens,
        "ignore_eos": True,
    }
    server: dict[str, Any] = {"max_running_requests": count, "max_total_tokens": 16384}
    if args.chunked_prefill_size is not None:
        server["chunked_prefill_size"] = args.chunked_prefill_size
    total = count * new_tokens

    ours: list[float] = []
    theirs: list[float] = []
    with Engine(model_path=str(model), **server) as engine:
        engine.generate(input_ids=[[5, 6, 7] * 10, [8, 9] * 20], sampling_params=params)  # warm up
        for _ in range(args.rounds):
            engine.flush_cache()  # every round computes every prompt: nothing is shared
            start = time.perf_counter()
            outputs = engine.generate(input_ids=ids, sampling_params=params)
            ours.append(time.perf_counter() - start)
            assert all(len(o["output_ids"]) == new_tokens for o in outputs)
            theirs += hf_generate(model, ids, new_tokens, 1)
    t_ours, t_hf = statistics.median(ours), statistics.median(theirs)

    chunk = engine.server_args.chunked_prefill_size
    print(
        f"{count} prompts of 20 to 300 tokens x {new_tokens} new tokens, a random model of "
        f"SmolLM2-135M-Instruct's geometry, float32; --chunked-prefill-size {chunk}"
    )
    print("rounds, seconds (engine / transformers):", ", ".join(
        f"{a:.1f} / {b:.1f}" for a, b in zip(ours, theirs, strict=True)
    ))  # fmt: skip
    print_table(
        ["run (median round)", "seconds", "tokens/s", "ratio"],
        [
            ["transformers generate (batched)", f"{t_hf:.2f}", f"{total / t_hf:.0f}", "1.00x"],
            [
                "our engine, continuous batching",
                f"{t_ours:.2f}",
                f"{total / t_ours:.0f}",
                f"{t_hf / t_ours:.2f}x vs transformers",
            ],
        ],
    )
    splits = time_split(str(model), ids, params, **server)
    pre, dec = splits["prefill"], splits["decode"]
    print(
        f"\nwhere a step spends its time (in-process scheduler, same workload): "
        f"{pre.steps} prefill steps of {pre.tokens / pre.steps:.0f} tokens, "
        f"{dec.steps} decode steps of {dec.sequences / dec.steps:.1f} sequences on average"
    )
    rows = []
    for component in (*COMPONENTS, "total"):
        row = [component]
        for split in (pre, dec):
            seconds = split.total if component == "total" else split.seconds.get(component, 0.0)
            row += [f"{1000 * seconds / split.steps:.1f}", f"{100 * seconds / split.total:.0f}%"]
        rows.append(row)
    print_table(["component", "prefill ms/step", "share", "decode ms/step", "share"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--workload", choices=("small", "sampling", "smollm2", "all"), default="all"
    )
    parser.add_argument("--prompts", type=int, default=32, help="workloads small, sampling")
    parser.add_argument("--new-tokens", type=int, default=128, help="workloads small, sampling")
    parser.add_argument("--rounds", type=int, default=1, help="workload smollm2")
    parser.add_argument(
        "--chunked-prefill-size", type=int, default=None, help="workload smollm2: the engine's"
    )
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")
    if args.threads is not None:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)  # the scheduler process reads it

    import torch

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    print(machine(), f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    if args.workload in ("small", "all"):
        small(args)
    if args.workload in ("sampling", "all"):
        sampling(args)
    if args.workload in ("smollm2", "all"):
        smollm2(args)


if __name__ == "__main__":
    main()
