"""The prefix cache and chunked prefill over HTTP, as ratios measured side by side in one run.

A ~35M-parameter random Llama (``make_model --size small``: hidden 512, 10
layers, 8 query / 4 KV heads, context raised to 4096, float32), where prefill
compute dominates on a small CPU. Four ``python -m sglang.launch_server``
processes are up at once and take turns (an idle scheduler does not spin):

* ``cache``: the defaults (radix cache on, ``--chunked-prefill-size 128``);
* ``no-cache``: ``--disable-radix-cache``;
* ``unchunked``: ``--chunked-prefill-size -1``;
* ``mixed``: ``--enable-mixed-chunk --chunked-prefill-size 24`` (the
  running streams decode in every prefill step, their 8 tokens counted
  in the 24).

Every run goes through :func:`sglang.bench_serving.benchmark` (the code of
``python -m sglang.bench_serving``) after ``POST /flush_cache``. Each round
runs every mode back to back; a target's value is the median over the
rounds of that round's ratio against its baseline (every round's value is
printed too), so one round that other jobs slowed decides nothing:

(a) ``generated-shared-prefix``, cache vs no-cache: output throughput
    >= 3x and median TTFT <= 1/3;
(b) ``random`` (nothing shared), cache vs no-cache: throughput >= 0.95x;
(c) a 2048-token prompt arriving while 8 streams decode: the streams' p99
    ITL <= 3x their median with chunked prefill (mixed); the same figure
    with the default chunking (cache) and without chunking (unchunked),
    reported.

Run: ``python benchmarks/bench_serving.py [--quick] [--rounds N] [--output-file F]
[--chunked-prefill-size N] [--threads N]`` (default: the full workloads, three rounds,
about 5 minutes on 2 cores; ``--quick``: smaller workloads and one round, about 1 minute;
``--chunked-prefill-size``: the chunk of the cache and no-cache servers; ``--threads``:
torch threads per server, default 1, the steadiest on a shared machine). Results:
``docs/benchmarks/serving.rst``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import Server, machine, print_table, running_servers

from sglang.bench_serving import (
    DatasetRow,
    RequestFuncInput,
    RequestFuncOutput,
    Vocabulary,
    async_request_sglang_generate,
    benchmark,
    open_client,
    percentile,
    sample_generated_shared_prefix_requests,
    sample_random_requests,
)

MIXED_CHUNK = 24
"""The ``mixed`` server's ``--chunked-prefill-size``: 8 streams' tokens and 16 of the prompt."""

SERVERS = {
    "cache": [],
    "no-cache": ["--disable-radix-cache"],
    "unchunked": ["--chunked-prefill-size", "-1"],
    "mixed": ["--enable-mixed-chunk", "--chunked-prefill-size", str(MIXED_CHUNK)],
}
SEED = 1


@dataclass(frozen=True)
class Workload:
    """The sizes of the three scenarios."""

    gsp_groups: int
    gsp_per_group: int
    gsp_system: int
    gsp_question: int
    gsp_output: int
    random_prompts: int
    random_input: int
    random_output: int
    streams: int
    stream_input: int
    stream_output: int
    long_input: int


QUICK = Workload(2, 6, 512, 32, 16, 12, 192, 24, 8, 32, 48, 2048)
FULL = Workload(4, 8, 1024, 32, 32, 32, 512, 64, 8, 32, 128, 2048)


async def run_rows(server: Server, rows: Sequence[DatasetRow]) -> dict[str, Any]:
    """One ``bench_serving`` run of *rows*, all sent at once, after a cache flush.

    The run's result block is not printed (the summary tables say it all).
    """
    async with open_client(server.url) as client:
        cpu = server.cpu_seconds()
        with contextlib.redirect_stdout(io.StringIO()):
            result, _ = await benchmark(client, rows, seed=SEED, flush_cache=True)
        result["server_cpu_s"] = server.cpu_seconds() - cpu  # warm-up and flush included
    assert result["failed"] == 0, result
    return result


async def long_prompt_among_streams(
    server: Server, vocab: Vocabulary, w: Workload
) -> dict[str, Any]:
    """8 streams decode; once each has 8 gaps, a long prompt arrives. The streams' ITLs."""
    streams = sample_random_requests(
        vocab,
        num_prompts=w.streams,
        input_len=w.stream_input,
        output_len=w.stream_output,
        range_ratio=1.0,
        seed=SEED,
    )
    (long,) = sample_random_requests(
        vocab, num_prompts=1, input_len=w.long_input, output_len=4, range_ratio=1.0, seed=SEED + 1
    )

    def request(row: DatasetRow) -> RequestFuncInput:
        return RequestFuncInput(row.prompt, "/generate", row.prompt_len, row.output_len)

    async with open_client(server.url) as client:
        await async_request_sglang_generate(client, request(streams[0]), None)  # warm up
        assert (await client.post("/flush_cache")).status_code == 200
        outs = [RequestFuncOutput(prompt_len=r.prompt_len) for r in streams]
        tasks = [
            asyncio.create_task(async_request_sglang_generate(client, request(r), o))
            for r, o in zip(streams, outs, strict=True)
        ]
        while not all(len(o.itl) >= 8 or o.latency for o in outs):
            await asyncio.sleep(0.005)
        late = await async_request_sglang_generate(client, request(long), None)
        await asyncio.gather(*tasks)
    failed = [o.error for o in (late, *outs) if not o.success]
    assert not failed, failed
    itls = [gap for o in outs for gap in o.itl]
    return {
        "median_itl_ms": percentile(itls, 50) * 1000,
        "p99_itl_ms": percentile(itls, 99) * 1000,
        "max_itl_ms": max(itls) * 1000,
        "itl_count": len(itls),
        "long_ttft_ms": late.ttft * 1000,
    }


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the highest output throughput."""
    return max(runs, key=lambda r: float(r["output_throughput"]))


def target(
    name: str, values: list[float], goal: str = "reported", passes: float | None = None
) -> list[str]:
    """A row: the median of the rounds' values, each round's, and the verdict.

    *passes* is the threshold the median must reach: at least it when *goal*
    starts with ``>=``, at most it otherwise; ``None``: reported, no verdict.
    """
    value = statistics.median(values)
    rounds = " ".join(f"{v:.2f}" for v in values)
    if passes is None:
        return [name, f"{value:.2f}x", rounds, goal, "-"]
    ok = value >= passes if goal.startswith(">=") else value <= passes
    return [name, f"{value:.2f}x", rounds, goal, "PASS" if ok else "FAIL"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small workloads, one round")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 1 quick, 3)")
    parser.add_argument("--output-file", default=None, help="append every run's figures (JSON)")
    parser.add_argument(
        "--chunked-prefill-size",
        type=int,
        default=None,
        help="--chunked-prefill-size of the cache and no-cache servers (default: the server's)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads per server (OMP_NUM_THREADS; 1 is steadiest on a shared machine)",
    )
    args = parser.parse_args()
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")
    w = QUICK if args.quick else FULL
    rounds = args.rounds or (1 if args.quick else 3)

    from sglang.srt.server_args import DEFAULT_CHUNKED_PREFILL_SIZE
    from sglang.testing.make_model import SIZES, make_model

    chunk = args.chunked_prefill_size or DEFAULT_CHUNKED_PREFILL_SIZE
    # the streams decode at least three times as many steps as the chunked prefill takes
    # (mixed: a chunk holds the streams' tokens too), so that their median gap is a plain
    # decode step
    per_step = min(chunk, MIXED_CHUNK - w.streams)
    steps = 3 * -(-w.long_input // per_step) + 8
    w = dataclasses.replace(w, stream_output=max(w.stream_output, steps))

    with tempfile.TemporaryDirectory() as folder:
        model = make_model(Path(folder) / "serving", SIZES["small"], max_position_embeddings=4096)
        runs = measure(model, w, rounds, args)
    if args.output_file:
        with open(args.output_file, "a", encoding="utf-8") as file:
            for key, results in runs.items():
                for result in results:
                    file.write(json.dumps({"run": key, **result}) + "\n")
    report(w, runs, f"{rounds} round(s), {args.threads} torch thread(s) per server, "
                    f"--chunked-prefill-size {chunk} (cache, no-cache)")  # fmt: skip


def measure(
    model: Path, w: Workload, rounds: int, args: argparse.Namespace
) -> dict[str, list[dict[str, Any]]]:
    """Start the three servers on *model* and run every scenario *rounds* times."""
    vocab = Vocabulary.from_tokenizer(model)
    gsp = sample_generated_shared_prefix_requests(
        vocab,
        num_groups=w.gsp_groups,
        prompts_per_group=w.gsp_per_group,
        system_prompt_len=w.gsp_system,
        question_len=w.gsp_question,
        output_len=w.gsp_output,
        seed=SEED,
    )
    rand = sample_random_requests(
        vocab,
        num_prompts=w.random_prompts,
        input_len=w.random_input,
        output_len=w.random_output,
        range_ratio=1.0,
        seed=SEED,
    )
    kv = ["--max-total-tokens", str(max(sum(r.prompt_len + r.output_len for r in gsp), 8192))]
    configs = {name: [*flags, *kv] for name, flags in SERVERS.items()}
    if args.chunked_prefill_size is not None:
        for name in ("cache", "no-cache"):
            configs[name] += ["--chunked-prefill-size", str(args.chunked_prefill_size)]
    runs: dict[str, list[dict[str, Any]]] = {}

    def record(key: str, result: dict[str, Any]) -> None:
        runs.setdefault(key, []).append(result)
        print(f"{key}: done at {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    start = time.perf_counter()
    with running_servers(model, configs, {"OMP_NUM_THREADS": str(args.threads)}) as servers:
        print(f"servers up at {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        for _ in range(rounds):  # the modes take turns, so the machine's load hits all alike
            for name in ("cache", "no-cache"):
                record(f"gsp/{name}", asyncio.run(run_rows(servers[name], gsp)))
                record(f"random/{name}", asyncio.run(run_rows(servers[name], rand)))
            for name in ("cache", "mixed", "unchunked"):
                stall = asyncio.run(long_prompt_among_streams(servers[name], vocab, w))
                record(f"stall/{name}", stall)
    return runs


def ratio(run: dict[str, Any]) -> float:
    """A stall run's p99 ITL over its median ITL."""
    return float(run["p99_itl_ms"] / run["median_itl_ms"])


def per_round(
    runs: dict[str, list[dict[str, Any]]], key: str, field: str, baseline: str
) -> list[float]:
    """Each round's *field* of run *key*, divided by the same round's run *baseline*.

    The modes of a round run back to back, so a round's ratio compares them
    under the same load; the verdicts take the median over the rounds.
    """
    pairs = zip(runs[key], runs[baseline], strict=True)
    return [float(run[field]) / float(base[field]) for run, base in pairs]


def report(w: Workload, runs: dict[str, list[dict[str, Any]]], setup: str) -> None:
    """Print the runs (the best of each mode) and the targets' verdicts (medians of rounds)."""
    # the run with the best throughput of each mode; of the stall runs, the most even one
    top = {
        key: min(results, key=ratio) if key.startswith("stall/") else best(results)
        for key, results in runs.items()
    }

    print(machine())
    print(f"~35M-parameter Llama, float32, context 4096; {setup}")
    print(
        f"(a) generated-shared-prefix: {w.gsp_groups} groups x {w.gsp_per_group} prompts, "
        f"system {w.gsp_system} + question {w.gsp_question} tokens, {w.gsp_output} out, rate inf"
    )
    print(f"(b) random: {w.random_prompts} prompts, {w.random_input} in, {w.random_output} out")
    print(
        f"(c) {w.streams} streams ({w.stream_input} in, {w.stream_output} out) and one "
        f"{w.long_input}-token prompt arriving while they decode"
    )
    columns = ["seconds", "server CPU s", "out tok/s", "median TTFT ms", "median ITL ms"]
    shown = ("duration", "server_cpu_s", "output_throughput", "median_ttft_ms", "median_itl_ms")
    rows = []
    for key in ("gsp/cache", "gsp/no-cache", "random/cache", "random/no-cache"):
        r = top[key]
        rows.append([key, *(f"{r[f]:.1f}" for f in shown), f"{r['cache_hit_rate']:.0%}"])
    print_table(["run (best round)", *columns, "cache hit"], rows)
    stall_rows = []
    for key in ("stall/mixed", "stall/cache", "stall/unchunked"):
        r = top[key]
        stall = ("median_itl_ms", "p99_itl_ms", "max_itl_ms", "long_ttft_ms")
        stall_rows.append([key, *(f"{r[f]:.1f}" for f in stall), f"{ratio(r):.2f}x"])
    print_table(
        ["run (most even)", "median ITL ms", "p99 ITL ms", "max ITL ms", "long TTFT ms",
         "p99/median"],
        stall_rows,
    )  # fmt: skip
    tput = per_round(runs, "gsp/cache", "output_throughput", "gsp/no-cache")
    ttft = per_round(runs, "gsp/cache", "median_ttft_ms", "gsp/no-cache")
    cost = per_round(runs, "random/cache", "output_throughput", "random/no-cache")
    stalls = {mode: [ratio(r) for r in runs[f"stall/{mode}"]] for mode in ("mixed", "cache")}
    unchunked = [ratio(r) for r in runs["stall/unchunked"]]

    def cpu(key: str) -> list[float]:  # the same ratio in server CPU seconds
        return per_round(runs, f"{key}/no-cache", "server_cpu_s", f"{key}/cache")

    print_table(
        ["target", "median", "rounds", "goal", "verdict"],
        [
            target("(a) gsp output throughput, cache / no cache", tput, ">= 3x", 3.0),
            target("(a) gsp median TTFT, cache / no cache", ttft, "<= 0.33x", 1 / 3),
            target("(b) random throughput, cache / no cache", cost, ">= 0.95x", 0.95),
            target("(c) streams' p99 / median ITL, mixed 24", stalls["mixed"], "<= 3x", 3.0),
            target("(c) streams' p99 / median ITL, default 128", stalls["cache"]),
            target("(c) streams' p99 / median ITL, unchunked", unchunked),
            target("(a) gsp, no-cache / cache server CPU seconds", cpu("gsp")),
            target("(b) random, no-cache / cache server CPU seconds", cpu("random")),
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
