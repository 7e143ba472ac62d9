"""The demo device's diffusion custom op: a counted ``RMSNorm`` forward.

:func:`install` (called from ``DemoDiffusionPlatform.init_backend()``, once
per worker) registers :func:`rms_norm_forward` for ``RMSNorm`` under the
demo's dispatch key. With ``SGLANG_DEMO_COUNTERS`` naming a file, each
process appends its count there as JSON when it exits.

Imports torch and the diffusion runtime's layers: only ``init_backend()``
imports this module, never the activation callback.
"""

from __future__ import annotations

import atexit
import json
import os

import torch

from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp
from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm

__all__ = ["COUNTERS", "install", "rms_norm_forward"]

COUNTERS: dict[str, int] = {"diffusion_rms_norm": 0}
"""How often each demo op ran in this process."""


def rms_norm_forward(op: RMSNorm, x: torch.Tensor) -> torch.Tensor:
    """The demo RMSNorm: counts the call, then computes as the native op does."""
    COUNTERS["diffusion_rms_norm"] += 1
    return op.forward_native(x)


def _write_counters() -> None:
    path = os.environ.get("SGLANG_DEMO_COUNTERS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"pid": os.getpid(), "runtime": "diffusion", **COUNTERS}) + "\n"
            )


_installed: list[bool] = []


def install() -> None:
    """Register the demo RMSNorm (once per process)."""
    if _installed:
        return
    _installed.append(True)
    CustomOp.register_oot_forward(RMSNorm, fn=rms_norm_forward, platform_key="demo")
    atexit.register(_write_counters)
