"""The demo distribution's own general plugin: counts the worker's forward batches.

Registered under ``sglang.srt.plugins`` as ``demo``. Shipping in the
platform's distribution makes it part of the platform: ``load_plugins()``
loads it only in processes where the demo platform is selected (it is
skipped when another platform is), and a failure in it stops start-up
instead of being skipped with a warning, as the plugin guide says.

The hook adds one to ``COUNTERS["forward_batches"]`` of
:mod:`sglang_demo_platform.runtime` after every
``TpModelWorker.forward_batch_generation``; with ``SGLANG_DEMO_COUNTERS``
set, the scheduler process writes it out at exit with the other counts.
"""

from __future__ import annotations

from typing import TypeVar

from sglang.srt.plugins.hook_registry import HookRegistry, HookType

__all__ = ["TARGET", "count_forward_batch", "register"]

TARGET = "sglang.srt.managers.tp_worker.TpModelWorker.forward_batch_generation"
"""The hooked method, by dotted path."""

R = TypeVar("R")


def register() -> None:
    """The ``sglang.srt.plugins`` entry point: an AFTER hook on :data:`TARGET`."""
    HookRegistry.register(TARGET, count_forward_batch, HookType.AFTER, api_version=1)


def count_forward_batch(result: R, *args: object, **kwargs: object) -> R:
    """Count one forward batch; return the result unchanged."""
    from sglang_demo_platform.runtime import COUNTERS

    COUNTERS["forward_batches"] += 1
    return result
