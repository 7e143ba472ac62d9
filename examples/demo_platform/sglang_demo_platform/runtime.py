"""The demo device's pieces of the reference SRT runtime, with counters that prove their use.

:func:`install` (called from ``DemoSRTPlatform.init_backend()``, in every
scheduler process) registers the demo attention backend and the demo
implementations of the fused ops (dispatch key ``demo``). The KV pool the
platform returns counts its writes. :data:`COUNTERS` holds the counts of
this process; with ``SGLANG_DEMO_COUNTERS`` naming a file, each process
writes them there as JSON when it exits.

Imports torch and the runtime: only the factories and ``init_backend()``
import this module, never the activation callback.
"""

from __future__ import annotations

import atexit
import json
import os
from typing import Any

import torch

from sglang.runtime.op_dispatch import register_op_impl
from sglang.sdk.srt_runtime import AttentionLayerLike, ForwardBatchLike
from sglang.srt.layers.attention import register_attention_backend
from sglang.srt.layers.attention.torch_native_backend import TorchNativeAttnBackend
from sglang.srt.mem_cache.memory_pool import MHATokenToKVPool

__all__ = ["COUNTERS", "COUNTERS_ENV", "DemoAttnBackend", "DemoKVPool", "install"]

COUNTERS: dict[str, int] = {
    "kv_writes": 0,
    "attention_calls": 0,
    "rms_norm": 0,
    "silu_and_mul": 0,
    "rotary_embedding": 0,
    "forward_batches": 0,  # counted by the distribution's general plugin (plugin.py)
}
"""How often each demo piece ran in this process."""

COUNTERS_ENV = "SGLANG_DEMO_COUNTERS"
"""Names a file each process writes :data:`COUNTERS` to (as JSON) at exit."""


class DemoKVPool(MHATokenToKVPool):
    """The paged pool, on host memory, counting its writes."""

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        """Write the new keys and values (and count it)."""
        COUNTERS["kv_writes"] += 1
        super().set_kv_buffer(layer_id, loc, k, v)


class DemoAttnBackend(TorchNativeAttnBackend):
    """The native attention, counting its calls (registered as ``"demo"``)."""

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: AttentionLayerLike,
        batch: ForwardBatchLike,
    ) -> torch.Tensor:
        """Attend as the native backend does (and count it)."""
        COUNTERS["attention_calls"] += 1
        return super().forward(q, k, v, layer, batch)


def _counted(name: str) -> Any:
    def impl(op: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTERS[name] += 1
        return op.forward_native(*args, **kwargs)

    return impl


def _write_counters() -> None:
    path = os.environ.get(COUNTERS_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"pid": os.getpid(), **COUNTERS}) + "\n")


_installed = False


def install() -> None:
    """Register the demo attention backend and fused ops (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    register_attention_backend("demo", DemoAttnBackend)
    for op in ("rms_norm", "silu_and_mul", "rotary_embedding"):
        register_op_impl(op, "demo", _counted(op))
    atexit.register(_write_counters)
