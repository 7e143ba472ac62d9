"""Platform selection for both runtimes: once per process, behind a gate.

:func:`resolve_platform` returns the runtime's selected platform, running
:func:`sglang.runtime.selection.engine.select` the first time through an
:class:`~sglang.runtime.gate.OnceGate`: concurrent first calls select once,
a failure is remembered and re-raised, and an activation callback that
touches ``current_platform`` gets a :class:`PlatformSelectionError`
saying it must not. :func:`initialize_current_platform` runs the selected
platform's ``init_backend()`` at most once per process with the same
semantics. :func:`selection_report` explains what selection did.

The documented per-runtime entry points wrap these functions:
``sglang.srt.platforms.current_platform`` and
``sglang.multimodal_gen.runtime.platforms.current_platform``.
"""

from __future__ import annotations

import _thread
import os

from sglang.runtime.discovery import entry_point_index
from sglang.runtime.gate import GateState, OnceGate
from sglang.runtime.selection import errors
from sglang.runtime.selection.engine import Progress, select
from sglang.runtime.selection.errors import PlatformInitError, PlatformSelectionError
from sglang.runtime.selection.record import ReportBuilder
from sglang.runtime.spec import PerRuntime, RuntimeSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.builtin.families import ProbeContext
    from sglang.runtime.selection.outcome import Selected
    from sglang.runtime.selection.report import SelectionReport

__all__ = [
    "initialize_current_platform",
    "platform_dists",
    "reset_selection",
    "resolve_platform",
    "selected_platform_dist",
    "selection_report",
]


def _real_probe_context() -> ProbeContext:
    from sglang.runtime.builtin.families import ProbeContext

    return ProbeContext.real()


class _RuntimeState:
    """One runtime's selection in this process: its gates, its log and its live progress.

    :attr:`builder` is the log the report is made from; :attr:`progress` is
    what selection is doing now, which a re-entrancy error names.
    """

    def __init__(self, spec: RuntimeSpec) -> None:
        self.spec = spec
        self.builder = ReportBuilder(spec)
        self.progress = Progress()
        self._report: SelectionReport | None = None
        self._report_lock = _thread.allocate_lock()
        self.selection: OnceGate[Selected] = OnceGate(
            f"{spec.title} platform selection", self._select
        )
        self.init: OnceGate[None] = OnceGate(
            f"{spec.title} platform backend initialisation", self._initialize
        )

    def _select(self) -> Selected:
        return select(
            self.spec,
            self.builder,
            environ=os.environ,
            index=entry_point_index(),
            probe_context=_real_probe_context,
            progress=self.progress,
        )

    def _initialize(self) -> None:
        selected = self.resolve()
        try:
            init_backend = getattr(selected.platform, "init_backend")  # noqa: B009
            init_backend()
        except Exception as exc:
            cls = type(selected.platform)
            qualname = f"{cls.__module__}.{cls.__qualname__}"
            raise PlatformInitError(errors.init_failed(self.spec, qualname, selected, exc)) from exc

    def resolve(self) -> Selected:
        selected = self.selection.run()
        if selected is None:  # re-entered from inside selection, on this thread
            current = self.progress.current
            if current is not None:
                source = errors.who(self.spec, current)
            else:
                activity = self.progress.activity or "selecting the platform"
                source = f"Code running during {self.spec.title} platform selection ({activity})"
            raise PlatformSelectionError(errors.reentrant(self.spec, source))
        return selected

    def report(self) -> SelectionReport | None:
        """Freeze the builder once selection has finished (``None`` before)."""
        if self.selection.state not in (GateState.DONE, GateState.FAILED):
            return None
        with self._report_lock:
            if self._report is None:
                self._report = self.builder.freeze(
                    error=self.selection.error, first_stack=self.selection.first_stack
                )
            return self._report

    def reset(self) -> None:
        self.selection.reset()
        self.init.reset()
        self.builder = ReportBuilder(self.spec)
        self.progress = Progress()
        self._report = None


_states: PerRuntime[_RuntimeState] = PerRuntime(_RuntimeState)
_state = _states.get


def resolve_platform(spec: RuntimeSpec) -> object:
    """Return *spec*'s selected platform instance, selecting it on first use.

    Thread-safe; selection runs once per process and runtime. This is what
    ``current_platform`` returns.

    Raises:
        PlatformSelectionError: Selection failed (now or on an earlier call:
            the same exception is raised again), or this call comes from
            inside selection, for example from an activation callback.
        PlatformContractError: A plugin broke the platform contract.
    """
    return _state(spec).resolve().platform


def selected_platform_dist(spec: RuntimeSpec) -> str | None:
    """Return the distribution that provided *spec*'s selected platform.

    Selects the platform if that has not happened yet. ``None`` means a
    built-in platform was selected. The name is spelled as the
    distribution's metadata spells it (``EntryPointRecord.dist_name``).
    """
    return _state(spec).resolve().dist_name


def platform_dists(spec: RuntimeSpec) -> frozenset[str]:
    """Return the names of every distribution declaring a platform of *spec*.

    Reads metadata only: nothing is imported and nothing is selected.
    """
    return frozenset(record.dist_name for record in entry_point_index().group(spec.platforms_group))


def initialize_current_platform(spec: RuntimeSpec) -> None:
    """Run the selected platform's ``init_backend()`` at most once per process.

    Selects the platform first if needed. Concurrent callers wait for the
    first; a call from inside ``init_backend()`` returns at once.

    Raises:
        PlatformInitError: ``init_backend()`` raised, now or on an earlier
            call (it is never retried).
        PlatformSelectionError: Selection failed.
    """
    state = _state(spec)
    # select outside the init gate: a re-entrant call from an activation
    # callback must fail without leaving the init gate failed for good
    state.resolve()
    state.init.run()


def selection_report(spec: RuntimeSpec, *, resolve: bool = True) -> SelectionReport | None:
    """Return what *spec*'s platform selection did and why.

    Args:
        spec: The runtime.
        resolve: Select the platform now if that has not happened yet. A
            failure is not raised: it is in :attr:`SelectionReport.error`.

    Returns:
        The report, or ``None`` when selection has not run (``resolve=False``).

    Raises:
        PlatformSelectionError: ``resolve`` is true and this call comes from
            inside selection (an activation callback): there is no report yet.
    """
    state = _state(spec)
    if resolve:
        try:
            state.resolve()
        except Exception:
            if state.selection.is_reentrant():
                raise
            # otherwise the report carries the error
    return state.report()


def reset_selection(spec: RuntimeSpec) -> None:
    """Forget *spec*'s selection, report and backend initialisation. For tests only.

    A real process never needs this: selection and initialisation are
    once-per-process by design, and side effects of ``init_backend()`` are
    not undone.
    """
    _state(spec).reset()
