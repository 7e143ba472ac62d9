"""HTTP serving throughput against the in-process engine, as a ratio measured in one run.

A ~35M-parameter random Llama (``make_model --size small``), 32 prompts,
128 new tokens each, greedy with ``ignore_eos``:

* in process: the 32 requests in one ``Engine.generate`` call;
* over HTTP: ``python -m sglang.launch_server`` on 127.0.0.1 and 32
  concurrent clients, each streaming its ``/v1/completions`` answer as
  server-sent events (``httpx``), every token received before it stops.

The ratio is HTTP tokens/s over in-process tokens/s (target >= 0.9x: the
HTTP layer costs little). The server and the in-process engine use the
same flags and take turns, round after round (the best round of each
counts), so they never share the CPU and both see the same machine load.

Run: ``python benchmarks/bench_http.py [--prompts 32] [--new-tokens 128] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import machine, print_table, running_servers

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "hello", "world"]


def engine_round(engine: Any, prompts: list[str], new_tokens: int) -> float:
    """Seconds for all prompts in one ``Engine.generate`` call."""
    params = {"temperature": 0, "max_new_tokens": new_tokens, "ignore_eos": True}
    start = time.perf_counter()
    outs = engine.generate(prompts, params)
    elapsed = time.perf_counter() - start
    assert all(len(o["output_ids"]) == new_tokens for o in outs)
    return elapsed


async def stream_one(client: httpx.AsyncClient, prompt: str, new_tokens: int) -> int:
    """Stream one completion to its end; return the tokens its ``usage`` event reports.

    The client reads every event but parses only the last ones (as a
    client that shows text needs no JSON parser per token either).
    """
    body = {
        "prompt": prompt,
        "max_tokens": new_tokens,
        "temperature": 0,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    tail = b""
    async with client.stream("POST", "/v1/completions", json=body) as response:
        response.raise_for_status()
        async for data in response.aiter_raw():
            tail = (tail + data)[-4096:]
    events = [e for e in tail.split(b"\n\n") if e.startswith(b"data: {")]
    assert tail.endswith(b"data: [DONE]\n\n"), tail
    return int(json.loads(events[-1][6:])["usage"]["completion_tokens"])


async def http_round(url: str, prompts: list[str], new_tokens: int) -> float:
    """Seconds for one concurrent streaming client per prompt."""
    limits = httpx.Limits(max_connections=len(prompts), max_keepalive_connections=len(prompts))
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:
        # open one keep-alive connection per client first, as long-lived clients have
        await asyncio.gather(*(stream_one(client, p, 1) for p in prompts))
        start = time.perf_counter()
        counts = await asyncio.gather(*(stream_one(client, p, new_tokens) for p in prompts))
        elapsed = time.perf_counter() - start
    assert counts == [new_tokens] * len(prompts), counts
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("SGLANG_USE_CPU_ENGINE", "1")

    from sglang.testing.make_model import SIZES, make_model

    model = make_model(Path(tempfile.mkdtemp()) / "small", SIZES["small"])
    prompts = [" ".join(WORDS[: 3 + i % 8] * (1 + i % 3)) for i in range(args.prompts)]
    total = args.prompts * args.new_tokens
    from sglang import Engine

    # Both are up at once but take turns (an idle scheduler waits without
    # spinning), so a change in the machine's load hits both alike.
    flags = ["--max-running-requests", str(args.prompts)]
    with running_servers(model, {"http": flags}) as servers:
        url = servers["http"].url
        with Engine(model_path=str(model), max_running_requests=args.prompts) as engine:
            engine_round(engine, prompts[:2], 4)  # warm up
            t_engine = t_http = float("inf")
            for _ in range(args.rounds):
                t_engine = min(t_engine, engine_round(engine, prompts, args.new_tokens))
                t_http = min(t_http, asyncio.run(http_round(url, prompts, args.new_tokens)))

    print(machine())
    print(f"{args.prompts} prompts x {args.new_tokens} new tokens, ~35M-parameter Llama, float32")
    print_table(
        ["run", "seconds", "tokens/s", "ratio"],
        [
            ["Engine.generate, in process", f"{t_engine:.2f}", f"{total / t_engine:.0f}", "1.00x"],
            [
                f"HTTP, {args.prompts} streaming clients",
                f"{t_http:.2f}",
                f"{total / t_http:.0f}",
                f"{t_engine / t_http:.2f}x vs in process",
            ],
        ],
    )


if __name__ == "__main__":
    main()
