"""What platform selection did and why: :class:`SelectionReport`.

Selection records every step it takes (which activation callbacks ran and
what each returned, which built-in probes ran, which platform was chosen and
why) in a :class:`~sglang.runtime.selection.record.ReportBuilder`; the
finished, frozen :class:`SelectionReport` is what ``sglang plugins`` prints
and what :func:`sglang.runtime.selection.selection_report` returns, also
when selection failed. This module is imported only when a report is asked
for, so that selecting a platform does not pay for defining it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.runtime.selection.outcome import CallbackStatus, SelectionMode

if TYPE_CHECKING:
    from sglang.runtime.builtin.families import ProbeOutcome

__all__ = [
    "CallbackOutcome",
    "CallbackStatus",
    "SelectionMode",
    "SelectionReport",
]


@dataclass(frozen=True)
class CallbackOutcome:
    """One activation callback that selection ran.

    Attributes:
        name: The entry-point name.
        value: The entry-point value (``"pkg.mod:activate"``).
        dist_name: The distribution that declared the entry point.
        dist_version: That distribution's version.
        status: What the callback did.
        result: The qualname it returned (:attr:`CallbackStatus.ACTIVATED` only).
        error: ``"ExcType: message"`` for :attr:`CallbackStatus.FAILED`.
    """

    name: str
    value: str
    dist_name: str
    dist_version: str
    status: CallbackStatus
    result: str | None = None
    error: str | None = None

    def describe(self) -> str:
        """Return one line: ``name (dist version) -> result``."""
        if self.status is CallbackStatus.ACTIVATED:
            outcome = self.result
        elif self.status is CallbackStatus.DECLINED:
            outcome = "None (hardware unavailable)"
        else:
            outcome = f"error: {self.error}"
        return f"{self.name} ({self.dist_name} {self.dist_version}) -> {outcome}"


@dataclass(frozen=True)
class SelectionReport:
    """Everything one runtime's platform selection did, for explanation.

    Attributes:
        runtime: The runtime's short name (``"srt"`` or ``"diffusion"``).
        mode: Explicit, auto or built-in override.
        selector_env: The selector environment variable's name.
        selector_value: Its value during selection (``None`` when unset).
        allowlist_env: The variable filtering auto discovery (SRT's
            ``SGLANG_PLUGINS``), or ``None`` for runtimes without one.
        allowlist: The names it allowed, or ``None`` when it was unset.
        filtered_out: Entry-point names the allowlist skipped (never imported).
        callbacks: The activation callbacks that ran, in order.
        probes: The built-in hardware probes that ran, in order.
        platform_class: ``module.QualName`` of the selected class, or ``None``
            when selection failed.
        platform_dist: The distribution that provided the selected platform;
            ``None`` for a built-in.
        platform_entry_point: The entry-point name that provided it; ``None``
            for a built-in.
        reason: Why this platform was chosen, for example
            ``"fallback: no plugin activated and CUDA is available"``.
        error: The failure message when selection failed, else ``None``.
        first_stack: Where selection was first triggered (formatted stack).
    """

    runtime: str
    mode: SelectionMode
    selector_env: str
    selector_value: str | None
    allowlist_env: str | None
    allowlist: tuple[str, ...] | None
    filtered_out: tuple[str, ...]
    callbacks: tuple[CallbackOutcome, ...]
    probes: tuple[ProbeOutcome, ...]
    platform_class: str | None
    platform_dist: str | None
    platform_entry_point: str | None
    reason: str
    error: str | None
    first_stack: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether selection succeeded."""
        return self.error is None

    def format(self) -> str:
        """Return a human-readable, multi-line explanation."""
        selector = "unset" if self.selector_value is None else repr(self.selector_value)
        lines = [
            f"{self.runtime} platform selection: {self.mode.value} ({self.selector_env}={selector})"
        ]
        if self.allowlist is not None:
            lines.append(f"  {self.allowlist_env} allows: {', '.join(self.allowlist) or '(none)'}")
        if self.filtered_out:
            lines.append(f"  skipped by {self.allowlist_env}: {', '.join(self.filtered_out)}")
        lines.extend(f"  callback {outcome.describe()}" for outcome in self.callbacks)
        for probe in self.probes:
            state = "available" if probe.available else "unavailable"
            if probe.error:
                state += f" (probe failed: {probe.error})"
            lines.append(f"  probe {probe.family}: {state}")
        if self.platform_class is not None:
            source = (
                "built-in"
                if self.platform_dist is None
                else f"{self.platform_entry_point} from {self.platform_dist}"
            )
            lines.append(f"  selected {self.platform_class} ({source})")
        if self.reason:
            lines.append(f"  why: {self.reason}")
        if self.error is not None:
            lines.append(f"  FAILED: {self.error.splitlines()[0]}")
        return "\n".join(lines)
