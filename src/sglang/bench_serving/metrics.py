"""The figures of a run: :func:`calculate_metrics` and the printed block, :func:`format_result`.

Over the successful requests of a run that took ``duration`` seconds:

* throughputs: requests, prompt tokens, generated tokens and both together, per second;
* TTFT (time to first token), TPOT (time per output token after the
  first: ``(latency - ttft) / (output_len - 1)``), ITL (every gap between
  consecutive tokens of a request, all requests pooled) and E2E latency,
  each as mean, median, standard deviation and percentiles, in milliseconds;
* concurrency: the summed latencies over the duration (requests in flight on average);
* cache hit rate: prompt tokens served from the prefix cache over all prompt tokens.

Percentiles interpolate linearly between the closest ranks (as
``numpy.percentile`` does by default); an empty sample gives 0.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from sglang.bench_serving.clients import RequestFuncOutput

__all__ = ["BenchmarkMetrics", "calculate_metrics", "format_result", "percentile"]


def percentile(values: Sequence[float], q: float) -> float:
    """The *q*-th percentile (0-100) of *values*, linearly interpolated; 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _std(values: Sequence[float]) -> float:
    return statistics.pstdev(values) if values else 0.0


@dataclass(frozen=True)
class BenchmarkMetrics:
    """The figures of one run (field names are the keys of the ``--output-file`` line).

    Latencies are in milliseconds, throughputs per second, ``cache_hit_rate`` in ``[0, 1]``.
    """

    completed: int
    failed: int
    total_input_tokens: int
    total_output_tokens: int
    total_cached_tokens: int
    request_throughput: float
    input_throughput: float
    output_throughput: float
    total_throughput: float
    mean_ttft_ms: float
    median_ttft_ms: float
    std_ttft_ms: float
    p99_ttft_ms: float
    mean_tpot_ms: float
    median_tpot_ms: float
    std_tpot_ms: float
    p99_tpot_ms: float
    mean_itl_ms: float
    median_itl_ms: float
    std_itl_ms: float
    p95_itl_ms: float
    p99_itl_ms: float
    max_itl_ms: float
    mean_e2e_latency_ms: float
    median_e2e_latency_ms: float
    std_e2e_latency_ms: float
    p99_e2e_latency_ms: float
    concurrency: float
    cache_hit_rate: float

    def as_dict(self) -> dict[str, float | int]:
        """The figures by name."""
        return dataclasses.asdict(self)


def calculate_metrics(outputs: Sequence[RequestFuncOutput], duration: float) -> BenchmarkMetrics:
    """The figures of a run whose requests measured *outputs* in *duration* seconds."""
    done = [o for o in outputs if o.success]
    ttfts = [o.ttft for o in done]
    tpots = [(o.latency - o.ttft) / (o.output_len - 1) for o in done if o.output_len > 1]
    itls = [gap for o in done for gap in o.itl]
    e2e = [o.latency for o in done]
    total_input = sum(o.prompt_len for o in done)
    total_output = sum(o.output_len for o in done)
    cached = sum(o.cached_tokens for o in done)
    ms = 1000.0
    return BenchmarkMetrics(
        completed=len(done),
        failed=len(outputs) - len(done),
        total_input_tokens=total_input,
        total_output_tokens=total_output,
        total_cached_tokens=cached,
        request_throughput=len(done) / duration,
        input_throughput=total_input / duration,
        output_throughput=total_output / duration,
        total_throughput=(total_input + total_output) / duration,
        mean_ttft_ms=_mean(ttfts) * ms,
        median_ttft_ms=percentile(ttfts, 50) * ms,
        std_ttft_ms=_std(ttfts) * ms,
        p99_ttft_ms=percentile(ttfts, 99) * ms,
        mean_tpot_ms=_mean(tpots) * ms,
        median_tpot_ms=percentile(tpots, 50) * ms,
        std_tpot_ms=_std(tpots) * ms,
        p99_tpot_ms=percentile(tpots, 99) * ms,
        mean_itl_ms=_mean(itls) * ms,
        median_itl_ms=percentile(itls, 50) * ms,
        std_itl_ms=_std(itls) * ms,
        p95_itl_ms=percentile(itls, 95) * ms,
        p99_itl_ms=percentile(itls, 99) * ms,
        max_itl_ms=max(itls, default=0.0) * ms,
        mean_e2e_latency_ms=_mean(e2e) * ms,
        median_e2e_latency_ms=percentile(e2e, 50) * ms,
        std_e2e_latency_ms=_std(e2e) * ms,
        p99_e2e_latency_ms=percentile(e2e, 99) * ms,
        concurrency=sum(e2e) / duration,
        cache_hit_rate=cached / total_input if total_input else 0.0,
    )


def _row(label: str, value: object) -> str:
    text = f"{value:.2f}" if isinstance(value, float) else str(value)
    return f"{label:<40} {text:<10}".rstrip()


def _rule(title: str, fill: str) -> str:
    return f"{title:{fill}^50}"


def format_result(
    metrics: BenchmarkMetrics,
    *,
    backend: str,
    request_rate: float,
    max_concurrency: int | None,
    duration: float,
) -> str:
    """The result block upstream's ``bench_serving`` prints, plus the prefix-cache lines.

    A run with failed requests adds their count (upstream prints nothing of them).
    """
    m = metrics
    failed = [_row("Failed requests:", m.failed)] if m.failed else []
    lines = [
        _rule(" Serving Benchmark Result ", "="),
        _row("Backend:", backend),
        _row("Traffic request rate:", request_rate),
        _row("Max request concurrency:", max_concurrency or "not set"),
        _row("Successful requests:", m.completed),
        *failed,
        _row("Benchmark duration (s):", duration),
        _row("Total input tokens:", m.total_input_tokens),
        _row("Total generated tokens:", m.total_output_tokens),
        _row("Total cached tokens:", m.total_cached_tokens),
        _row("Request throughput (req/s):", m.request_throughput),
        _row("Input token throughput (tok/s):", m.input_throughput),
        _row("Output token throughput (tok/s):", m.output_throughput),
        _row("Total token throughput (tok/s):", m.total_throughput),
        _row("Concurrency:", m.concurrency),
        _row("Cache hit rate:", f"{m.cache_hit_rate:.2%}"),
        _rule("End-to-End Latency", "-"),
        _row("Mean E2E Latency (ms):", m.mean_e2e_latency_ms),
        _row("Median E2E Latency (ms):", m.median_e2e_latency_ms),
        _row("P99 E2E Latency (ms):", m.p99_e2e_latency_ms),
        _rule("Time to First Token", "-"),
        _row("Mean TTFT (ms):", m.mean_ttft_ms),
        _row("Median TTFT (ms):", m.median_ttft_ms),
        _row("P99 TTFT (ms):", m.p99_ttft_ms),
        _rule("Time per Output Token (excl. 1st token)", "-"),
        _row("Mean TPOT (ms):", m.mean_tpot_ms),
        _row("Median TPOT (ms):", m.median_tpot_ms),
        _row("P99 TPOT (ms):", m.p99_tpot_ms),
        _rule("Inter-Token Latency", "-"),
        _row("Mean ITL (ms):", m.mean_itl_ms),
        _row("Median ITL (ms):", m.median_itl_ms),
        _row("P95 ITL (ms):", m.p95_itl_ms),
        _row("P99 ITL (ms):", m.p99_itl_ms),
        _row("Max ITL (ms):", m.max_itl_ms),
        "=" * 50,
    ]
    return "\n".join(lines)
