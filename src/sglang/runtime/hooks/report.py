"""What the hook engine reports: each hook's status, and its errors.

:meth:`HookRegistry.hooks() <sglang.runtime.hooks.HookRegistry.hooks>`
returns one :class:`HookInfo` per registered hook: its target, type, the
plugin and distribution it came from, and whether it is applied, pending,
superseded by another REPLACE hook, failed or disabled, with the reason.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from sglang.runtime.plugin_source import PluginSource
from sglang.sdk.hooks import HookType

__all__ = ["HookApplyError", "HookInfo", "HookStatus", "format_hooks"]


class HookStatus(enum.Enum):
    """Where one registered hook stands."""

    PENDING = "pending"
    """Registered, not applied yet: the next ``apply_hooks()`` applies it."""

    APPLIED = "applied"
    """Part of the callable now installed at its target."""

    SUPERSEDED = "superseded"
    """A REPLACE hook overridden by a later REPLACE hook on the same target."""

    FAILED = "failed"
    """Could not be applied (see :attr:`HookInfo.reason`). When its target did
    not exist (:attr:`HookInfo.retried`), every later ``apply_hooks()`` tries
    it again and applies it once the target appears."""

    DISABLED = "disabled"
    """Dropped: its plugin failed while loading or in its callback, or its
    distribution provides a platform that was not selected."""


@dataclass(frozen=True)
class HookInfo:
    """One registered hook, as :meth:`HookRegistry.hooks` reports it.

    Attributes:
        target: The target path as registered.
        hook_type: How the hook combines with its target.
        hook: The hook's qualified name (``module.qualname``).
        source: The plugin that registered it, or ``None`` for a direct
            registration outside plugin loading.
        status: Applied, pending, superseded, failed or disabled.
        reason: Why it failed, was disabled or superseded (``None`` otherwise).
        location: The attribute actually patched (``module.Class.name``),
            once resolved.
        hook_module: The module defining the hook (names direct
            registrations, which have no plugin source).
        retried: Failed because the target did not exist (its module not
            found, or an attribute missing): the next ``apply_hooks()``
            tries it again.
        api_version: The target signature version the registration stated
            (``api_version=``), or ``None``.
    """

    target: str
    hook_type: HookType
    hook: str
    source: PluginSource | None
    status: HookStatus
    reason: str | None
    location: str | None
    hook_module: str
    retried: bool = False
    api_version: int | None = None

    @property
    def origin(self) -> str:
        """``plugin 'p' (distribution d 1.0)`` or ``direct registration (module m)``."""
        if self.source is not None:
            return self.source.describe()
        return f"direct registration (module {self.hook_module})"


def format_hooks(infos: Iterable[HookInfo]) -> str:
    """Render hook reports as an aligned text table (one line per hook)."""
    rows = [("TARGET", "TYPE", "HOOK", "SOURCE", "STATUS")]
    for info in infos:
        status = info.status.value
        if info.reason:
            status = f"{status}: {info.reason}"
        if info.retried:
            status = f"{status}; retried by the next apply_hooks()"
        rows.append((info.target, info.hook_type.name, info.hook, info.origin, status))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
        + "  "
        + row[4]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


class HookApplyError(RuntimeError):
    """A required hook could not be applied; the apply's patches were rolled back.

    Hooks are required when they come from the selected platform's
    distribution (part of the platform's contract) or were registered
    directly, outside plugin loading.

    Attributes:
        info: The failed hook.
        failures: Every required hook that failed in the same apply.
    """

    def __init__(self, message: str, info: HookInfo, failures: tuple[HookInfo, ...]) -> None:
        super().__init__(message)
        self.info = info
        self.failures = failures
