"""The log platform selection keeps while it runs: :class:`ReportBuilder`.

Selection appends to it what it did (each callback's outcome, the probes,
the choice and why); it is a log only, never read to steer selection. What
selection is doing *now*, which re-entrancy errors name, is the live
:class:`~sglang.runtime.selection.engine.Progress` of the per-runtime state.
Kept apart from :mod:`sglang.runtime.selection.report` so that selecting a
platform imports only these few cheap definitions; the frozen report
dataclasses are built when a report is asked for.
"""

from __future__ import annotations

from sglang.runtime.selection.outcome import CallbackStatus, SelectionMode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.builtin.families import ProbeOutcome
    from sglang.runtime.discovery import EntryPointRecord
    from sglang.runtime.selection.report import SelectionReport
    from sglang.runtime.spec import RuntimeSpec

__all__ = ["CallbackRecord", "ReportBuilder"]


CallbackRecord = tuple["EntryPointRecord", CallbackStatus, "str | None", "str | None"]
"""One callback run, as recorded: ``(entry point, status, result, error)``."""


class ReportBuilder:
    """The mutable record selection fills in; :meth:`freeze` makes the report.

    A plain class rather than a dataclass: it is created on every
    selection, and defining dataclasses costs import time.

    Args:
        spec: The runtime being selected.
    """

    def __init__(self, spec: RuntimeSpec) -> None:
        self.spec = spec
        self.mode = SelectionMode.AUTO
        self.selector_value: str | None = None
        self.allowlist: tuple[str, ...] | None = None
        self.filtered_out: tuple[str, ...] = ()
        self.callbacks: list[CallbackRecord] = []
        self.probes: tuple[ProbeOutcome, ...] = ()
        self.platform_class: str | None = None
        self.platform_dist: str | None = None
        self.platform_entry_point: str | None = None
        self.reason = ""

    def record(
        self,
        record: EntryPointRecord,
        status: CallbackStatus,
        *,
        result: str | None = None,
        error: str | None = None,
    ) -> None:
        """Append the outcome of *record*'s callback."""
        self.callbacks.append((record, status, result, error))

    def freeze(
        self, *, error: BaseException | None = None, first_stack: tuple[str, ...] = ()
    ) -> SelectionReport:
        """Return the finished :class:`~sglang.runtime.selection.report.SelectionReport`."""
        from sglang.runtime.selection.report import CallbackOutcome, SelectionReport

        callbacks = tuple(
            CallbackOutcome(
                record.name,
                record.value,
                record.dist_name,
                record.dist_version,
                status,
                result,
                failure,
            )
            for record, status, result, failure in self.callbacks
        )
        return SelectionReport(
            runtime=self.spec.name,
            mode=self.mode,
            selector_env=self.spec.selector_env,
            selector_value=self.selector_value,
            allowlist_env=self.spec.auto_allowlist_env,
            allowlist=self.allowlist,
            filtered_out=self.filtered_out,
            callbacks=callbacks,
            probes=self.probes,
            platform_class=self.platform_class if error is None else None,
            platform_dist=self.platform_dist if error is None else None,
            platform_entry_point=self.platform_entry_point if error is None else None,
            reason=self.reason,
            error=None if error is None else f"{type(error).__name__}: {error}",
            first_stack=first_stack,
        )
