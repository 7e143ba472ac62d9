"""``sglang-observability``: count and time calls of SGLang functions via hooks.

An example general plugin for both runtimes. Its entry points
(``observability`` in ``sglang.srt.plugins`` and in
``sglang.multimodal_gen.plugins``) register, for each target, a BEFORE hook
counting calls and an AROUND hook timing them::

    import sglang_observability

    for target, entry in sglang_observability.stats().items():
        print(target, entry.calls, entry.mean_s)

The targets default to the plugin guide's common SRT hook targets (and the
diffusion worker's initialisation); ``SGLANG_OBSERVABILITY_TARGETS`` replaces
them with a comma-separated list. ``SGLANG_OBSERVABILITY_LOG_AT_EXIT=1`` logs
the table when the process exits.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Mapping
from typing import Protocol

from sglang.sdk import HookType
from sglang_observability.hooks import CallCounter, Timer
from sglang_observability.stats import StatsCollector, TargetStats, format_stats
from sglang_observability.targets import (
    DEFAULT_DIFFUSION_TARGETS,
    DEFAULT_SRT_TARGETS,
    LOG_AT_EXIT_ENV,
    TARGETS_ENV,
    configured_targets,
    log_at_exit,
)

__all__ = [
    "COLLECTOR",
    "DEFAULT_DIFFUSION_TARGETS",
    "DEFAULT_SRT_TARGETS",
    "LOG_AT_EXIT_ENV",
    "TARGETS_ENV",
    "CallCounter",
    "StatsCollector",
    "TargetStats",
    "Timer",
    "format_stats",
    "register_diffusion",
    "register_srt",
    "reset_stats",
    "stats",
]

COLLECTOR = StatsCollector()
"""Where this process's hooks record; read it through :func:`stats`."""

logger = logging.getLogger("sglang_observability")


class _Registry(Protocol):
    """The part of a runtime's ``HookRegistry`` this plugin uses."""

    def register(self, target: str, hook: CallCounter | Timer, hook_type: HookType) -> object:
        """Register *hook* on *target*."""
        ...


def stats() -> Mapping[str, TargetStats]:
    """Calls, errors and timings per hooked target, so far in this process."""
    return COLLECTOR.snapshot()


def reset_stats() -> None:
    """Forget every count and timing."""
    COLLECTOR.reset()


def register_srt() -> None:
    """``sglang.srt.plugins`` entry point: hook the SRT targets."""
    from sglang.srt.plugins.hook_registry import HookRegistry

    _register(HookRegistry, configured_targets(DEFAULT_SRT_TARGETS))


def register_diffusion() -> None:
    """``sglang.multimodal_gen.plugins`` entry point: hook the diffusion targets."""
    from sglang.multimodal_gen.runtime.platforms.plugins import HookRegistry

    _register(HookRegistry, configured_targets(DEFAULT_DIFFUSION_TARGETS))


def _register(registry: _Registry, targets: tuple[str, ...]) -> None:
    for target in targets:
        registry.register(target, CallCounter(target, COLLECTOR), HookType.BEFORE)
        registry.register(target, Timer(target, COLLECTOR), HookType.AROUND)
    if log_at_exit():
        _install_exit_log()


_exit_lock = threading.Lock()
_exit_installed = False


def _install_exit_log() -> None:
    global _exit_installed
    with _exit_lock:
        if _exit_installed:
            return
        _exit_installed = True
    if not logger.hasHandlers():
        logger.addHandler(logging.StreamHandler())
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    atexit.register(_log_stats)


def _log_stats() -> None:
    logger.info("sglang-observability call statistics:\n%s", format_stats(stats()))
