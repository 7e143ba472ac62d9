"""A whole run: :func:`benchmark` (async), :func:`run_benchmark` and :func:`main`.

:func:`run_benchmark` finds the server (``--base-url``, else ``--host`` and
``--port``), the model id and the tokenizer (``GET /v1/models`` when
``--model`` or ``--tokenizer`` is not given), builds the dataset, then
:func:`benchmark` sends the warm-up requests, ``POST /flush_cache`` with
``--flush-cache``, sends every request on the Poisson schedule, prints the
result block and returns the figures. ``OPENAI_API_KEY``, when set, is sent
as ``Authorization: Bearer``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sglang.bench_serving.args import make_parser
from sglang.bench_serving.arrivals import arrival_times, paced
from sglang.bench_serving.clients import (
    ASYNC_REQUEST_FUNCS,
    RequestFuncInput,
    RequestFuncOutput,
)
from sglang.bench_serving.datasets import (
    DatasetRow,
    Vocabulary,
    sample_generated_shared_prefix_requests,
    sample_random_requests,
)
from sglang.bench_serving.metrics import calculate_metrics, format_result

if TYPE_CHECKING:
    import httpx

__all__ = ["benchmark", "get_dataset", "main", "open_client", "run_benchmark"]

ENDPOINTS: Mapping[str, str] = {"sglang": "/generate", "sglang-oai": "/v1/completions"}
"""``--backend`` -> the path its requests go to."""

_ARG_KEYS = (
    "backend",
    "dataset_name",
    "num_prompts",
    "seed",
    "random_input_len",
    "random_output_len",
    "random_range_ratio",
    "gsp_num_groups",
    "gsp_prompts_per_group",
    "gsp_system_prompt_len",
    "gsp_question_len",
    "gsp_output_len",
)


def get_dataset(args: argparse.Namespace, vocab: Vocabulary) -> list[DatasetRow]:
    """The requests ``--dataset-name`` describes (``--num-prompts`` counts ``random`` only)."""
    if args.dataset_name == "generated-shared-prefix":
        return sample_generated_shared_prefix_requests(
            vocab,
            num_groups=args.gsp_num_groups,
            prompts_per_group=args.gsp_prompts_per_group,
            system_prompt_len=args.gsp_system_prompt_len,
            question_len=args.gsp_question_len,
            output_len=args.gsp_output_len,
            seed=args.seed,
        )
    return sample_random_requests(
        vocab,
        num_prompts=args.num_prompts,
        input_len=args.random_input_len,
        output_len=args.random_output_len,
        range_ratio=args.random_range_ratio,
        seed=args.seed,
    )


def open_client(base_url: str) -> httpx.AsyncClient:
    """An :class:`httpx.AsyncClient` on *base_url*: no connection limit, no timeout, the API key."""
    import httpx

    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    return httpx.AsyncClient(base_url=base_url, headers=headers, timeout=None, limits=limits)


class _Progress:
    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled

    def update(self) -> None:
        self.done += 1
        if self.enabled:
            end = "\n" if self.done == self.total else ""
            print(f"\r{self.done}/{self.total} requests done", end=end, file=sys.stderr)


async def benchmark(
    client: httpx.AsyncClient,
    rows: Sequence[DatasetRow],
    *,
    backend: str = "sglang",
    model: str | None = None,
    request_rate: float = float("inf"),
    max_concurrency: int | None = None,
    seed: int = 1,
    warmup_requests: int = 1,
    flush_cache: bool = False,
    ignore_eos: bool = True,
    extra_request_body: Mapping[str, Any] | None = None,
    disable_tqdm: bool = True,
) -> tuple[dict[str, Any], list[RequestFuncOutput]]:
    """Run *rows* against the server of *client*; return the figures and each request's output.

    Prints the result block (:func:`~sglang.bench_serving.metrics.format_result`).

    Args:
        client: A client on the server's base URL (see :func:`open_client`).
        rows: The requests, in sending order.
        backend: A key of :data:`~sglang.bench_serving.clients.ASYNC_REQUEST_FUNCS`.
        model: The model id sent to ``/v1/completions`` (``None``: none is sent).
        request_rate: Requests per second (Poisson); ``inf`` sends all at once.
        max_concurrency: Most requests in flight (``None``: no limit).
        seed: The seed of the arrival times.
        warmup_requests: Copies of the first request (at most 32 tokens out) sent first.
        flush_cache: ``POST /flush_cache`` after the warm-up.
        ignore_eos: Generate exactly each row's ``output_len`` tokens.
        extra_request_body: Fields merged into every request body.
        disable_tqdm: No progress line.

    Returns:
        The figures (``duration``, ``request_rate``, ``max_concurrency`` and every
        :class:`~sglang.bench_serving.metrics.BenchmarkMetrics` field) and the outputs.

    Raises:
        RuntimeError: Every warm-up request failed, or ``/flush_cache`` refused.
    """
    func = ASYNC_REQUEST_FUNCS[backend]
    url = ENDPOINTS[backend]
    extra = dict(extra_request_body or {})

    def request(row: DatasetRow, output_len: int | None = None) -> RequestFuncInput:
        n = row.output_len if output_len is None else output_len
        return RequestFuncInput(row.prompt, url, row.prompt_len, n, model, ignore_eos, extra)

    if warmup_requests > 0:
        warm = request(rows[0], min(rows[0].output_len, 32))
        outs = await asyncio.gather(*(func(client, warm, None) for _ in range(warmup_requests)))
        if not any(o.success for o in outs):
            raise RuntimeError(f"the warm-up request failed: {outs[0].error}")
    if flush_cache:
        response = await client.post("/flush_cache")
        if response.status_code != 200:
            status, text = response.status_code, response.text
            raise RuntimeError(f"POST /flush_cache answered {status}: {text}")

    semaphore = asyncio.Semaphore(max_concurrency) if max_concurrency else None
    progress = _Progress(len(rows), not disable_tqdm)

    async def one(row: DatasetRow) -> RequestFuncOutput:
        if semaphore is None:
            out = await func(client, request(row), None)
        else:
            async with semaphore:
                out = await func(client, request(row), None)
        progress.update()
        return out

    start = time.perf_counter()
    tasks: list[asyncio.Task[RequestFuncOutput]] = []
    async for row in paced(rows, arrival_times(len(rows), request_rate, seed)):
        tasks.append(asyncio.create_task(one(row)))
    outputs = list(await asyncio.gather(*tasks))
    duration = time.perf_counter() - start

    metrics = calculate_metrics(outputs, duration)
    print(format_result(metrics, backend=backend, request_rate=request_rate,
                        max_concurrency=max_concurrency, duration=duration))  # fmt: skip
    errors = [o.error for o in outputs if not o.success]
    if errors:
        print(f"{len(errors)} requests failed; the first: {errors[0]}", file=sys.stderr)
    result: dict[str, Any] = {"request_rate": request_rate, "max_concurrency": max_concurrency}
    result.update(duration=duration, **metrics.as_dict())
    return result, outputs


async def _find_model(client: httpx.AsyncClient) -> tuple[str | None, str | None]:
    """The first model's ``id`` and ``root`` (its path) from ``GET /v1/models``."""
    response = await client.get("/v1/models")
    response.raise_for_status()
    cards = response.json().get("data") or [{}]
    return cards[0].get("id"), cards[0].get("root")


def _tokenizer_path(args: argparse.Namespace, root: str | None) -> str:
    if args.tokenizer:
        return str(args.tokenizer)
    for candidate in (args.model, root):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise SystemExit(
        "no tokenizer found: pass --tokenizer (a model directory holding tokenizer.json); "
        f"neither --model {args.model!r} nor the server's model root {root!r} is a local path"
    )


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    base_url = args.base_url or f"http://{args.host}:{args.port}"
    extra = json.loads(args.extra_request_body) if args.extra_request_body else {}
    async with open_client(base_url.rstrip("/")) as client:
        model, root = args.model, None
        if args.model is None or args.tokenizer is None:
            found, root = await _find_model(client)
            model = model or found
        vocab = Vocabulary.from_tokenizer(_tokenizer_path(args, root))
        rows = get_dataset(args, vocab)
        print(f"#Input tokens: {sum(r.prompt_len for r in rows)}")
        print(f"#Output tokens: {sum(r.output_len for r in rows)}")
        result, outputs = await benchmark(
            client,
            rows,
            backend=args.backend,
            model=model,
            request_rate=args.request_rate,
            max_concurrency=args.max_concurrency,
            seed=args.seed,
            warmup_requests=args.warmup_requests,
            flush_cache=args.flush_cache,
            ignore_eos=not args.disable_ignore_eos,
            extra_request_body=extra,
            disable_tqdm=args.disable_tqdm,
        )
    result = {**{key: getattr(args, key) for key in _ARG_KEYS}, **result}
    if args.output_details:
        fields = ("prompt_len", "output_len", "cached_tokens", "ttft", "itl", "error")
        result["details"] = [{k: dataclasses.asdict(o)[k] for k in fields} for o in outputs]
    if args.output_file:
        with open(args.output_file, "a", encoding="utf-8") as file:
            file.write(json.dumps(result) + "\n")
    return result


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    """Run the benchmark *args* (parsed by :func:`~sglang.bench_serving.args.make_parser`).

    Returns the ``--output-file`` line's fields: the run's arguments and figures.
    """
    return asyncio.run(_run(args))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sglang.bench_serving``: parse *argv*, run, return the exit status."""
    args = make_parser().parse_args(argv)
    try:
        import httpx  # noqa: F401
    except ImportError:
        print("python -m sglang.bench_serving needs httpx: pip install 'sglang[bench]'")
        return 2
    result = run_benchmark(args)
    return 1 if result["failed"] else 0
