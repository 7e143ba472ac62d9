r"""``python -m sglang.bench_serving``: benchmark a running server's online serving.

Upstream SGLang's module path and flags, so its users keep their command::

    python -m sglang.bench_serving --backend sglang --port 30000 \
        --dataset-name random --random-input-len 256 --random-output-len 32 \
        --num-prompts 64 --request-rate 4 --output-file results.jsonl

It sends requests on a Poisson schedule (``--request-rate``, ``inf`` for
all at once), streams each answer (native ``/generate`` with ``--backend
sglang``, ``/v1/completions`` with ``sglang-oai``), and prints upstream's
figures: throughputs, TTFT, TPOT, ITL and end-to-end latency, plus the
prefix-cache hit rate from the responses' ``cached_tokens``. Prompts are
token ids drawn from the model's vocabulary (``random`` and
``generated-shared-prefix`` datasets), so their lengths are exact.

The package is a pure HTTP client: it needs :mod:`httpx` (the ``bench``
extra) and imports neither torch nor the runtime.
"""

from sglang.bench_serving.args import BACKENDS, DATASETS, DEFAULT_PORT, make_parser
from sglang.bench_serving.arrivals import arrival_times, paced
from sglang.bench_serving.clients import (
    ASYNC_REQUEST_FUNCS,
    RequestFunc,
    RequestFuncInput,
    RequestFuncOutput,
    async_request_openai_completions,
    async_request_sglang_generate,
)
from sglang.bench_serving.datasets import (
    DatasetRow,
    Vocabulary,
    sample_generated_shared_prefix_requests,
    sample_random_requests,
)
from sglang.bench_serving.metrics import (
    BenchmarkMetrics,
    calculate_metrics,
    format_result,
    percentile,
)
from sglang.bench_serving.runner import benchmark, get_dataset, main, open_client, run_benchmark

__all__ = [
    "ASYNC_REQUEST_FUNCS",
    "BACKENDS",
    "DATASETS",
    "DEFAULT_PORT",
    "BenchmarkMetrics",
    "DatasetRow",
    "RequestFunc",
    "RequestFuncInput",
    "RequestFuncOutput",
    "Vocabulary",
    "arrival_times",
    "async_request_openai_completions",
    "async_request_sglang_generate",
    "benchmark",
    "calculate_metrics",
    "format_result",
    "get_dataset",
    "main",
    "make_parser",
    "open_client",
    "paced",
    "percentile",
    "run_benchmark",
    "sample_generated_shared_prefix_requests",
    "sample_random_requests",
]
