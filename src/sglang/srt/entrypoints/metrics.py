"""The HTTP server's Prometheus metrics: :class:`ServerMetrics`.

Each app has its own :class:`prometheus_client.CollectorRegistry`, so
several servers in one process (tests, embedding applications) never share
counters. The names follow upstream SGLang's:

========================================  =========  ===========================================
name                                      kind       what
========================================  =========  ===========================================
``sglang:num_requests_total``             counter    generation requests accepted, by ``endpoint``
``sglang:request_errors_total``           counter    requests refused or failed, by ``endpoint``
``sglang:prompt_tokens_total``            counter    prompt tokens of finished requests
``sglang:cached_tokens_total``            counter    of those, tokens read from the prefix cache
``sglang:generation_tokens_total``        counter    tokens generated
``sglang:time_to_first_token_seconds``    histogram  from sending a request to its first output
``sglang:inter_token_latency_seconds``    histogram  between consecutive output tokens of a request
``sglang:e2e_request_latency_seconds``    histogram  from sending a request to its end
``sglang:num_running_reqs``               gauge      requests the scheduler is running
``sglang:num_queue_reqs``                 gauge      requests waiting for KV pages or a slot
``sglang:token_usage``                    gauge      share of the KV cache requests hold (0..1)
``sglang:cache_hit_rate``                 gauge      cached share of all prompt tokens so far (0..1)
``sglang:kv_pages_free``                  gauge      free KV-cache pages
``sglang:kv_pages_total``                 gauge      KV-cache pages
========================================  =========  ===========================================

The gauges are read from the scheduler when ``/metrics`` is scraped.
``sglang:num_requests_total`` was called ``sglang:requests_total`` in
earlier builds: it carries upstream's name now (see the changelog).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from sglang.srt.entrypoints.async_engine import RequestStream

__all__ = ["METRICS_MEDIA_TYPE", "ServerMetrics"]

METRICS_MEDIA_TYPE: str = CONTENT_TYPE_LATEST
"""The media type of ``/metrics`` (Prometheus text format)."""

_ITL_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0)

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

_GAUGES: Mapping[str, tuple[str, str]] = {
    "running": ("sglang:num_running_reqs", "Requests the scheduler is running."),
    "waiting": ("sglang:num_queue_reqs", "Requests waiting for KV pages or a running slot."),
    "token_usage": ("sglang:token_usage", "The share of the KV cache that requests hold."),
    "cache_hit_rate": ("sglang:cache_hit_rate", "The prefix cache's share of all prompt tokens."),
    "free_pages": ("sglang:kv_pages_free", "Free KV-cache pages."),
    "total_pages": ("sglang:kv_pages_total", "KV-cache pages."),
}
"""Scheduler info key -> (gauge name, help)."""


class ServerMetrics:
    """The counters, histograms and gauges of one server, in their own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.requests = Counter(
            "sglang:num_requests", "Generation requests accepted.", ["endpoint"], registry=registry
        )
        self.errors = Counter(
            "sglang:request_errors",
            "Generation requests refused or failed.",
            ["endpoint"],
            registry=registry,
        )
        self.prompt_tokens = Counter(
            "sglang:prompt_tokens", "Prompt tokens of finished requests.", registry=registry
        )
        self.cached_tokens = Counter(
            "sglang:cached_tokens",
            "Prompt tokens of finished requests read from the prefix cache.",
            registry=registry,
        )
        self.generation_tokens = Counter(
            "sglang:generation_tokens", "Tokens generated.", registry=registry
        )
        self.time_to_first_token = Histogram(
            "sglang:time_to_first_token_seconds",
            "Seconds from sending a request to its first output.",
            buckets=_LATENCY_BUCKETS,
            registry=registry,
        )
        self.inter_token_latency = Histogram(
            "sglang:inter_token_latency_seconds",
            "Seconds between consecutive output tokens of a request.",
            buckets=_ITL_BUCKETS,
            registry=registry,
        )
        self.e2e_latency = Histogram(
            "sglang:e2e_request_latency_seconds",
            "Seconds from sending a request to its end.",
            buckets=_LATENCY_BUCKETS,
            registry=registry,
        )
        self.gauges = {
            key: Gauge(name, text, registry=registry) for key, (name, text) in _GAUGES.items()
        }

    def accepted(self, endpoint: str) -> None:
        """Count a generation request on *endpoint* that was sent to the engine."""
        self.requests.labels(endpoint=endpoint).inc()

    def failed(self, endpoint: str) -> None:
        """Count a request on *endpoint* that was refused (bad input) or failed."""
        self.errors.labels(endpoint=endpoint).inc()

    def finished(self, stream: RequestStream) -> None:
        """Record the tokens and latencies of *stream* once it ended (or was closed)."""
        last = stream.last
        if last is None:
            return
        if stream.first_output_at is not None:
            self.time_to_first_token.observe(stream.first_output_at - stream.started)
        for gap in stream.token_gaps:
            self.inter_token_latency.observe(gap)
        self.e2e_latency.observe(time.perf_counter() - stream.started)
        self.prompt_tokens.inc(last.prompt_tokens)
        self.cached_tokens.inc(last.cached_tokens)
        self.generation_tokens.inc(last.completion_tokens)

    def render(self, server_info: Mapping[str, object]) -> bytes:
        """The exposition text, with the gauges set from the scheduler's *server_info*."""
        for key, gauge in self.gauges.items():
            value = server_info.get(key)
            if isinstance(value, int | float):
                gauge.set(value)
        return generate_latest(self.registry)
