"""What platform selection did and why: :class:`SelectionReport`.

Selection records every step it takes (which activation callbacks ran and
what each returned, which built-in probes ran, which platform was chosen and
why) in a :class:`ReportBuilder`; the finished, frozen
:class:`SelectionReport` is what ``sglang plugins`` prints and what
:func:`sglang.runtime.selection.selection_report` returns, also when
selection failed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from sglang.runtime.builtin.families import ProbeOutcome
from sglang.runtime.discovery import EntryPointRecord
from sglang.runtime.runtimes import RuntimeSpec

__all__ = [
    "CallbackOutcome",
    "CallbackStatus",
    "ReportBuilder",
    "SelectionMode",
    "SelectionReport",
]


class SelectionMode(enum.Enum):
    """How the platform was selected."""

    EXPLICIT = "explicit"
    """The selector variable named a platform plugin's entry point."""

    AUTO = "auto"
    """The selector variable was unset: every installed callback was asked."""

    OVERRIDE_BUILTIN = "override-builtin"
    """The selector variable named a built-in platform (diffusion only): no probing."""


class CallbackStatus(enum.Enum):
    """What one activation callback did."""

    ACTIVATED = "activated"
    """It returned a platform class qualname."""

    DECLINED = "declined"
    """It returned ``None``: its hardware is unavailable."""

    FAILED = "failed"
    """Importing it or calling it raised, or it returned a wrong type."""


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


@dataclass
class ReportBuilder:
    """The mutable record selection fills in; :meth:`freeze` makes the report."""

    spec: RuntimeSpec
    mode: SelectionMode = SelectionMode.AUTO
    selector_value: str | None = None
    allowlist: tuple[str, ...] | None = None
    filtered_out: tuple[str, ...] = ()
    callbacks: list[CallbackOutcome] = field(default_factory=list[CallbackOutcome])
    probes: tuple[ProbeOutcome, ...] = ()
    platform_class: str | None = None
    platform_dist: str | None = None
    platform_entry_point: str | None = None
    reason: str = ""
    current: EntryPointRecord | None = None
    """The entry point whose callback is running right now (for re-entrancy errors)."""
    activity: str = ""
    """What selection is doing right now, when not running a callback."""

    def record(
        self,
        record: EntryPointRecord,
        status: CallbackStatus,
        *,
        result: str | None = None,
        error: str | None = None,
    ) -> None:
        """Append the outcome of *record*'s callback."""
        self.callbacks.append(
            CallbackOutcome(
                record.name,
                record.value,
                record.dist_name,
                record.dist_version,
                status,
                result,
                error,
            )
        )

    def freeze(
        self, *, error: BaseException | None = None, first_stack: tuple[str, ...] = ()
    ) -> SelectionReport:
        """Return the finished :class:`SelectionReport`."""
        return SelectionReport(
            runtime=self.spec.name,
            mode=self.mode,
            selector_env=self.spec.selector_env,
            selector_value=self.selector_value,
            allowlist_env=self.spec.auto_allowlist_env,
            allowlist=self.allowlist,
            filtered_out=self.filtered_out,
            callbacks=tuple(self.callbacks),
            probes=self.probes,
            platform_class=self.platform_class if error is None else None,
            platform_dist=self.platform_dist if error is None else None,
            platform_entry_point=self.platform_entry_point if error is None else None,
            reason=self.reason,
            error=None if error is None else f"{type(error).__name__}: {error}",
            first_stack=first_stack,
        )
