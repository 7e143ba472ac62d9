"""The command line of ``python -m sglang.bench_serving``: :func:`make_parser`.

The flags are upstream SGLang's, with upstream's defaults, for the two
datasets and two backends this benchmark offers.
"""

from __future__ import annotations

import argparse

__all__ = ["BACKENDS", "DATASETS", "DEFAULT_PORT", "make_parser"]

BACKENDS = ("sglang", "sglang-oai")
"""``--backend`` values: ``sglang`` streams ``/generate``, ``sglang-oai`` ``/v1/completions``."""

DATASETS = ("random", "generated-shared-prefix")
"""``--dataset-name`` values (drawn from the tokenizer's vocabulary, nothing downloaded)."""

DEFAULT_PORT = 30000
"""The port used without ``--port`` or ``--base-url`` (``sglang serve``'s default)."""


def _rate(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive number of requests per second or inf")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _ratio(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return value


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m sglang.bench_serving``."""
    parser = argparse.ArgumentParser(
        prog="python -m sglang.bench_serving",
        description="Benchmark the online serving throughput and latency of an SGLang server.",
    )
    target = parser.add_argument_group("server")
    target.add_argument("--backend", choices=BACKENDS, default="sglang")
    target.add_argument("--base-url", default=None, help="Server URL; overrides --host and --port.")
    target.add_argument("--host", default="127.0.0.1")
    target.add_argument("--port", type=int, default=DEFAULT_PORT)
    target.add_argument(
        "--model",
        default=None,
        help="Model id sent to /v1/completions (default: the first id of GET /v1/models).",
    )
    target.add_argument(
        "--tokenizer",
        default=None,
        help="Model directory or tokenizer.json whose vocabulary the prompts are drawn from "
        "(default: --model when it is a local path, else the root GET /v1/models reports).",
    )

    load = parser.add_argument_group("load")
    load.add_argument("--dataset-name", choices=DATASETS, default="random")
    load.add_argument("--num-prompts", type=_positive, default=1000)
    load.add_argument(
        "--request-rate",
        type=_rate,
        default=float("inf"),
        help="Requests per second, as a Poisson process; inf (the default) sends all at once.",
    )
    load.add_argument(
        "--max-concurrency",
        type=_positive,
        default=None,
        help="Most requests in flight at once (default: no limit).",
    )
    load.add_argument("--seed", type=int, default=1)
    load.add_argument("--warmup-requests", type=int, default=1)
    load.add_argument(
        "--flush-cache",
        action="store_true",
        help="POST /flush_cache after the warm-up, before the timed run.",
    )
    load.add_argument(
        "--disable-ignore-eos",
        action="store_true",
        help="Let requests stop at EOS (then output lengths are no longer exact).",
    )
    load.add_argument(
        "--extra-request-body",
        default=None,
        metavar='{"key": "value"}',
        help="A JSON object merged into every request body.",
    )

    report = parser.add_argument_group("report")
    report.add_argument("--output-file", default=None, help="Append one JSON line per run here.")
    report.add_argument(
        "--output-details",
        action="store_true",
        help="Add the per-request lengths, TTFTs, ITLs and errors to the JSON line.",
    )
    report.add_argument("--disable-tqdm", action="store_true", help="No progress line.")

    random = parser.add_argument_group("random dataset")
    random.add_argument("--random-input-len", type=_positive, default=1024)
    random.add_argument("--random-output-len", type=_positive, default=1024)
    random.add_argument(
        "--random-range-ratio",
        type=_ratio,
        default=0.0,
        help="Lengths are drawn uniformly from [len * ratio, len]; 1 makes them exact.",
    )

    gsp = parser.add_argument_group("generated-shared-prefix dataset")
    gsp.add_argument("--gsp-num-groups", type=_positive, default=64)
    gsp.add_argument("--gsp-prompts-per-group", type=_positive, default=16)
    gsp.add_argument("--gsp-system-prompt-len", type=_positive, default=2048)
    gsp.add_argument("--gsp-question-len", type=_positive, default=128)
    gsp.add_argument("--gsp-output-len", type=_positive, default=256)
    return parser
