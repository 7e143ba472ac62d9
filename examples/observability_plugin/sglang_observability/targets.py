"""Which targets the plugin hooks: the guide's defaults, or the operator's list."""

from __future__ import annotations

import os
from typing import Final

__all__ = [
    "DEFAULT_DIFFUSION_TARGETS",
    "DEFAULT_SRT_TARGETS",
    "LOG_AT_EXIT_ENV",
    "TARGETS_ENV",
    "configured_targets",
]

TARGETS_ENV: Final = "SGLANG_OBSERVABILITY_TARGETS"
"""Comma-separated hook targets replacing the defaults (both runtimes)."""

LOG_AT_EXIT_ENV: Final = "SGLANG_OBSERVABILITY_LOG_AT_EXIT"
"""``1`` logs the stats table when the process exits."""

DEFAULT_SRT_TARGETS: Final = (
    "sglang.srt.server_args.ServerArgs.add_cli_args",
    "sglang.srt.server_args.ServerArgs.__post_init__",
    "sglang.srt.server_args.ServerArgs.check_server_args",
    "sglang.srt.managers.scheduler.Scheduler.__init__",
    "sglang.srt.managers.scheduler.Scheduler.get_next_batch_to_run",
    "sglang.srt.managers.scheduler.Scheduler.run_batch",
    "sglang.srt.managers.scheduler.Scheduler.process_batch_result",
    "sglang.srt.managers.tp_worker.TpModelWorker.__init__",
    "sglang.srt.managers.tp_worker.TpModelWorker.forward_batch_generation",
)
"""The plugin guide's "Common SRT Hook Targets"."""

DEFAULT_DIFFUSION_TARGETS: Final = (
    "sglang.multimodal_gen.runtime.managers.gpu_worker.GPUWorker.init_device_and_model",
)
"""The diffusion worker's device and model initialisation."""


def configured_targets(defaults: tuple[str, ...]) -> tuple[str, ...]:
    """The targets named by :data:`TARGETS_ENV`, or *defaults* when it is unset."""
    value = os.environ.get(TARGETS_ENV)
    if value is None:
        return defaults
    return tuple(dict.fromkeys(item.strip() for item in value.split(",") if item.strip()))


def log_at_exit() -> bool:
    """Whether :data:`LOG_AT_EXIT_ENV` asks for the table at exit."""
    return os.environ.get(LOG_AT_EXIT_ENV, "").strip().lower() in {"1", "true", "yes", "on"}
