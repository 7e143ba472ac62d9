"""HTTP serving throughput against the in-process engine, as a ratio measured in one run.

A ~35M-parameter random Llama (``make_model --size small``), 32 prompts,
128 new tokens each, greedy with ``ignore_eos``:

* in process: the 32 requests in one ``Engine.generate`` call;
* over HTTP: ``python -m sglang.launch_server`` on 127.0.0.1 and 32
  concurrent clients, each streaming its ``/v1/completions`` answer as
  server-sent events (``httpx``), every token received before it stops.

The ratio is HTTP tokens/s over in-process tokens/s (target >= 0.9x: the
HTTP layer costs little). Both runs use the same engine flags, one after
the other, so they never share the CPU.

Run: ``python benchmarks/bench_http.py [--prompts 32] [--new-tokens 128] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _common import machine, print_table

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "hello", "world"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def in_process(model: Path, prompts: list[str], new_tokens: int, rounds: int) -> float:
    """Best seconds for all prompts in one ``Engine.generate`` call."""
    from sglang import Engine

    params = {"temperature": 0, "max_new_tokens": new_tokens, "ignore_eos": True}
    best = float("inf")
    with Engine(model_path=str(model), max_running_requests=len(prompts)) as engine:
        engine.generate(prompts[:2], {**params, "max_new_tokens": 4})  # warm up
        for _ in range(rounds):
            start = time.perf_counter()
            outs = engine.generate(prompts, params)
            best = min(best, time.perf_counter() - start)
            assert all(len(o["output_ids"]) == new_tokens for o in outs)
    return best


async def stream_one(client: httpx.AsyncClient, prompt: str, new_tokens: int) -> int:
    """Stream one completion; return how many tokens it reported."""
    body = {
        "prompt": prompt,
        "max_tokens": new_tokens,
        "temperature": 0,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    tokens = 0
    async with client.stream("POST", "/v1/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                usage = json.loads(line[6:]).get("usage")
                tokens = usage["completion_tokens"] if usage else tokens
    return tokens


async def clients(url: str, prompts: list[str], new_tokens: int) -> float:
    limits = httpx.Limits(max_connections=len(prompts))
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:
        await stream_one(client, prompts[0], 4)  # warm up
        start = time.perf_counter()
        counts = await asyncio.gather(*(stream_one(client, p, new_tokens) for p in prompts))
        elapsed = time.perf_counter() - start
    assert counts == [new_tokens] * len(prompts), counts
    return elapsed


def over_http(model: Path, prompts: list[str], new_tokens: int, rounds: int) -> float:
    """Best seconds for 32 concurrent streaming clients against a real server."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "sglang.launch_server", "--model-path", str(model)]
    command += ["--port", str(port), "--max-running-requests", str(len(prompts))]
    command += ["--log-level", "warning"]
    server = subprocess.Popen(command)
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, "the server exited"
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        return min(asyncio.run(clients(url, prompts, new_tokens)) for _ in range(rounds))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)


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
    t_engine = in_process(model, prompts, args.new_tokens, args.rounds)
    t_http = over_http(model, prompts, args.new_tokens, args.rounds)

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
