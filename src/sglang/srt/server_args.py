"""The SRT runtime's server arguments: :class:`ServerArgs` and :func:`prepare_server_args`.

One dataclass holds every option of the reference SRT runtime; each field's
metadata carries its help text, so the command-line flags
(:meth:`ServerArgs.add_cli_args`) are generated from the fields and named
as upstream SGLang names them (``--model-path``, ``--tp-size``, ...).

Constructing a :class:`ServerArgs` asks the current platform for its
defaults (:meth:`~sglang.sdk.srt.SRTPlatform.apply_server_args_defaults`),
which may set any field still left at ``None``; the fields the platform
leaves unset then get the runtime's own defaults. Unpickling a
``ServerArgs`` (in a spawned worker) does not run that step again.

Importing this module imports neither torch nor the runtime.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_CHUNKED_PREFILL_SIZE",
    "DTYPES",
    "GRAMMAR_BACKENDS",
    "SCHEDULE_POLICIES",
    "ServerArgs",
    "prepare_server_args",
]

DTYPES = ("auto", "float32", "float16", "bfloat16")
"""Accepted ``--dtype`` values; ``auto`` takes the checkpoint's ``torch_dtype``."""

GRAMMAR_BACKENDS = ("xgrammar", "none")
"""Accepted ``--grammar-backend`` values (upstream also has ``outlines`` and ``llguidance``)."""

SCHEDULE_POLICIES = ("lpm", "fcfs")
"""Accepted ``--schedule-policy`` values: longest prefix match first, or arrival order."""

DEFAULT_CHUNKED_PREFILL_SIZE = 128
"""The runtime's ``--chunked-prefill-size`` when neither the user nor the platform sets one.

Upstream picks 2048 to 8192 tokens from the GPU's memory; on a CPU a
prefill step costs about its token count in compute, so chunks this size
keep a running stream's inter-token latency within a few decode steps
while a long prompt is prefilled (see the serving benchmark).
"""

_RUNTIME_DEFAULTS: dict[str, object] = {
    "mem_fraction_static": 0.88,
    "chunked_prefill_size": DEFAULT_CHUNKED_PREFILL_SIZE,
}
"""Defaults for fields that neither the user nor the platform set."""


def _opt(default: object, help: str, **extra: Any) -> Any:
    return field(default=default, metadata={"help": help, **extra})


@dataclass
class ServerArgs:
    """Every option of the reference SRT runtime (one command-line flag each).

    ``None`` means "decided later": by the platform's
    ``apply_server_args_defaults()``, then by the runtime (for example the
    attention backend comes from ``get_default_attention_backend()`` and
    the context length from the model's ``max_position_embeddings``).
    """

    model_path: str = _opt("", "Local directory of a Hugging Face checkpoint.")
    tokenizer_path: str | None = _opt(None, "Tokenizer directory (default: the model path).")
    served_model_name: str | None = _opt(None, "Model name the API reports (default: the path).")
    dtype: str = _opt("auto", "Weight and activation dtype.", choices=DTYPES)
    tp_size: int = _opt(1, "Tensor-parallel size: one scheduler process per rank.")
    mem_fraction_static: float | None = _opt(
        None, "Fraction of free device memory for weights and the KV cache."
    )
    max_running_requests: int | None = _opt(None, "Most requests decoding at once.")
    max_total_tokens: int | None = _opt(None, "KV-cache capacity in tokens (overrides memory).")
    context_length: int | None = _opt(None, "Longest prompt plus output, in tokens.")
    page_size: int = _opt(1, "Tokens per KV-cache page.")
    attention_backend: str | None = _opt(None, "Attention backend name.")
    disable_radix_cache: bool = _opt(
        False, "Disable RadixAttention's prefix cache: every request computes its whole prompt."
    )
    chunked_prefill_size: int | None = _opt(
        None,
        "Most prompt tokens one prefill step computes; longer prompts are prefilled in "
        f"chunks (-1 disables chunking; default {DEFAULT_CHUNKED_PREFILL_SIZE}).",
    )
    max_prefill_tokens: int = _opt(16384, "Most prompt tokens one prefill batch computes.")
    enable_mixed_chunk: bool = _opt(
        False,
        "Run the running requests' decode in the same step as a prefill (or a chunk of "
        "one): their tokens count against --chunked-prefill-size.",
    )
    schedule_policy: str | None = _opt(
        None,
        "Order of waiting requests: lpm (longest cached prefix first; the default with the "
        "cache) or fcfs (arrival order; the default without it).",
        choices=SCHEDULE_POLICIES,
    )
    schedule_conservativeness: float = _opt(
        1.0,
        "How much KV room to keep for running requests' future tokens (higher: fewer "
        "retractions, smaller batches).",
    )
    disable_cuda_graph: bool = _opt(False, "Run eagerly; never capture device graphs.")
    quantization: str | None = _opt(
        None, "Quantization method of the linear layers (the platform's config for it)."
    )
    enable_torch_compile: bool = _opt(
        False, "Compile the decoder layers with torch.compile (the platform's backend)."
    )
    grammar_backend: str = _opt(
        "xgrammar",
        "Library for structured output (json_schema, regex, ebnf, response_format); none "
        "refuses such requests.",
        choices=GRAMMAR_BACKENDS,
    )
    constrained_json_disable_any_whitespace: bool = _opt(
        False, "JSON-schema output without free whitespace between its tokens."
    )
    random_seed: int | None = _opt(None, "Seed for sampling and weight initialisation.")
    nnodes: int = _opt(1, "Number of machines.")
    node_rank: int = _opt(0, "This machine's rank among --nnodes.")
    dist_init_addr: str | None = _opt(
        None, "HOST:PORT of the torch.distributed rendezvous (needed with --nnodes > 1)."
    )
    host: str = _opt("127.0.0.1", "Address the HTTP server binds.")
    port: int = _opt(30000, "Port the HTTP server listens on.")
    api_key: str | None = _opt(None, "Require 'Authorization: Bearer KEY' on every endpoint.")
    log_level: str = _opt("info", "Logging level.", choices=("debug", "info", "warning", "error"))
    decode_log_interval: int = _opt(40, "Log a 'Decode batch' line every this many decode steps.")

    def __post_init__(self) -> None:
        from sglang.srt.platforms import current_platform

        current_platform.apply_server_args_defaults(self)
        for name, value in _RUNTIME_DEFAULTS.items():
            if getattr(self, name) is None:
                setattr(self, name, value)
        if self.schedule_policy is None:
            self.schedule_policy = "fcfs" if self.disable_radix_cache else "lpm"

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser) -> None:
        """Add one ``--flag-name`` per field to *parser* (defaults: the fields' defaults)."""
        for item in dataclasses.fields(ServerArgs):
            flag = "--" + item.name.replace("_", "-")
            options: dict[str, Any] = {"dest": item.name, "help": item.metadata["help"]}
            if item.default is False:
                parser.add_argument(flag, action="store_true", **options)
                continue
            kind = str(item.type).split(" | ")[0]
            options["type"] = {"int": int, "float": float}.get(kind, str)
            options["default"] = item.default
            if "choices" in item.metadata:
                options["choices"] = item.metadata["choices"]
            parser.add_argument(flag, **options)

    @classmethod
    def from_cli_args(cls, namespace: argparse.Namespace) -> ServerArgs:
        """Build a :class:`ServerArgs` from a namespace parsed with :meth:`add_cli_args`."""
        names = {item.name for item in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in vars(namespace).items() if k in names})

    def check_server_args(self) -> None:
        """Raise ``ValueError`` naming the flag of the first inconsistent option."""
        problems = [
            ("--model-path", not self.model_path, "is required"),
            ("--tp-size", self.tp_size < 1, "must be at least 1"),
            ("--page-size", self.page_size < 1, "must be at least 1"),
            ("--nnodes", self.nnodes < 1, "must be at least 1"),
            ("--node-rank", not 0 <= self.node_rank < self.nnodes, "must be in [0, --nnodes)"),
            (
                "--dist-init-addr",
                self.nnodes > 1 and not self.dist_init_addr,
                "is required with --nnodes > 1 (HOST:PORT of rank 0's machine)",
            ),
            (
                "--tp-size",
                self.nnodes >= 1 and self.tp_size % self.nnodes != 0,
                "must be a multiple of --nnodes (each node runs tp_size / nnodes ranks)",
            ),
            (
                "--mem-fraction-static",
                self.mem_fraction_static is not None and not 0 < self.mem_fraction_static < 1,
                "must be between 0 and 1",
            ),
            (
                "--max-running-requests",
                self.max_running_requests is not None and self.max_running_requests < 1,
                "must be at least 1",
            ),
            (
                "--max-total-tokens",
                self.max_total_tokens is not None and self.max_total_tokens < 1,
                "must be at least 1",
            ),
            (
                "--context-length",
                self.context_length is not None and self.context_length < 1,
                "must be at least 1",
            ),
            (
                "--chunked-prefill-size",
                self.chunked_prefill_size is not None
                and self.chunked_prefill_size != -1
                and self.chunked_prefill_size < 1,
                "must be -1 (no chunking) or at least 1",
            ),
            ("--max-prefill-tokens", self.max_prefill_tokens < 1, "must be at least 1"),
            ("--decode-log-interval", self.decode_log_interval < 1, "must be at least 1"),
            (
                "--schedule-policy",
                self.schedule_policy is not None and self.schedule_policy not in SCHEDULE_POLICIES,
                f"must be one of {', '.join(SCHEDULE_POLICIES)}",
            ),
            (
                "--schedule-policy",
                self.schedule_policy == "lpm" and self.disable_radix_cache,
                "lpm orders requests by their cached prefix, and --disable-radix-cache turns the "
                "cache off: use --schedule-policy fcfs",
            ),
            (
                "--schedule-conservativeness",
                not self.schedule_conservativeness > 0,
                "must be above 0",
            ),
            ("--port", not 0 < self.port < 65536, "must be a TCP port (1-65535)"),
            ("--dtype", self.dtype not in DTYPES, f"must be one of {', '.join(DTYPES)}"),
            (
                "--grammar-backend",
                self.grammar_backend not in GRAMMAR_BACKENDS,
                f"must be one of {', '.join(GRAMMAR_BACKENDS)}",
            ),
        ]
        for flag, bad, rule in problems:
            if bad:
                value = getattr(self, flag[2:].replace("-", "_"))
                raise ValueError(f"{flag} {rule} (got {value!r})")


def prepare_server_args(argv: Sequence[str]) -> ServerArgs:
    """Parse command-line *argv* (without the program name) into a :class:`ServerArgs`.

    ``--help`` prints the flags and exits, without selecting a platform.
    """
    parser = argparse.ArgumentParser(
        prog="sglang serve", description="Serve a model with the reference SRT runtime."
    )
    ServerArgs.add_cli_args(parser)
    return ServerArgs.from_cli_args(parser.parse_args(list(argv)))
