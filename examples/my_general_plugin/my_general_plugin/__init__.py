"""The plugin guide's general-plugin quick start: an AROUND hook on ``Scheduler.__init__``.

``load_plugins()`` calls :func:`register` in every process that runs the
SRT runtime (the launcher and each spawned scheduler); the hook then wraps
the scheduler's constructor, so "Scheduler initialized!" appears in the log
of each scheduler process, with its ``gpu_id``.
"""

from __future__ import annotations

from collections.abc import Callable

from sglang.srt.plugins.hook_registry import HookRegistry, HookType

__all__ = ["TARGET", "my_hook", "register"]

TARGET = "sglang.srt.managers.scheduler.Scheduler.__init__"
"""The hooked method, by dotted path."""


def register() -> None:
    """The entry point that ``load_plugins()`` calls."""
    HookRegistry.register(TARGET, my_hook, HookType.AROUND, api_version=1)


def my_hook(
    original_fn: Callable[..., object], self: object, *args: object, **kwargs: object
) -> object:
    """Run the original constructor, then say so."""
    result = original_fn(self, *args, **kwargs)
    print(f"Scheduler initialized! gpu_id={getattr(self, 'gpu_id', None)}", flush=True)
    return result
