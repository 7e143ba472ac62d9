"""The activation gate: run a startup step once per process.

Platform resolution, backend initialisation, plugin loading and hook
application each run through one :class:`OnceGate`:

* the first call runs the step, behind a lock;
* a re-entrant call (from inside the step, on the same thread, for example
  a plugin callback that triggers plugin loading again) returns at once and
  lets the outer call finish;
* other threads wait for the running call and then see its outcome;
* a failure is remembered and the same exception object (with its first
  traceback) is re-raised on every later call, from any thread, never
  retried, because registrations and backend side effects cannot be rolled
  back. This holds for any ``BaseException``, ``KeyboardInterrupt``
  included.

A step must not hand activation to a second thread and join it: that thread
would wait for the lock its own caller holds.
"""

from __future__ import annotations

import _thread
import enum
import sys

from sglang.sdk._record import Generic, T

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType, TracebackType

__all__ = ["GateState", "OnceGate"]


class GateState(enum.Enum):
    """Where a :class:`OnceGate` stands."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class OnceGate(Generic[T]):
    """Run *step* at most once per process; see the module docstring.

    Args:
        name: What the step does, for messages (``"SRT platform resolution"``).
        step: The argument-less callable to run.
    """

    def __init__(self, name: str, step: Callable[[], T]) -> None:
        self.name = name
        self._step = step
        self._lock = _thread.RLock()
        self._state = GateState.PENDING
        self._owner: int | None = None
        self._result: T | None = None
        self._error: BaseException | None = None
        self._error_tb: TracebackType | None = None
        self._first_frames: list[tuple[str, int, str]] = []

    @property
    def state(self) -> GateState:
        """The gate's current state."""
        return self._state

    @property
    def first_stack(self) -> tuple[str, ...]:
        """The formatted stack of the call that first ran the step (for debugging).

        Recorded as plain frame facts when the step starts and formatted
        here, so that running a step does not import :mod:`traceback`.
        """
        if not self._first_frames:
            return ()
        import traceback

        frames = traceback.StackSummary.from_list(
            [(file, line, name, None) for file, line, name in self._first_frames]
        )
        return tuple(traceback.format_list(frames))

    @property
    def error(self) -> BaseException | None:
        """The remembered failure, if the step failed."""
        return self._error

    def is_reentrant(self) -> bool:
        """Whether the current thread is inside this gate's step right now."""
        return self._state is GateState.RUNNING and self._owner == _thread.get_ident()

    def run(self) -> T | None:
        """Run the step once; return its result (``None`` on a re-entrant call).

        Raises:
            BaseException: whatever the step raised, now or on an earlier
                call; the same exception object is raised again.
        """
        if self._state is GateState.DONE:
            return self._result
        if self.is_reentrant():
            return None
        with self._lock:
            state = self.state  # may have changed while this thread waited
            if state is GateState.DONE:
                return self._result
            if state is GateState.FAILED:
                assert self._error is not None
                # the same object, with its first traceback (not one grown per call)
                raise self._error.with_traceback(self._error_tb)
            if state is GateState.RUNNING:  # re-entered from the owning thread
                return None
            self._state = GateState.RUNNING
            self._owner = _thread.get_ident()
            self._first_frames = _stack(sys._getframe(1))
            try:
                result = self._step()
            except BaseException as exc:
                self._error = exc
                self._error_tb = exc.__traceback__
                self._state = GateState.FAILED
                raise
            finally:
                self._owner = None
            self._result = result
            self._state = GateState.DONE
            return result

    def reset(self) -> None:
        """Return to PENDING, forgetting result and failure (for tests only)."""
        with self._lock:
            self._state = GateState.PENDING
            self._result = None
            self._error = None
            self._error_tb = None
            self._first_frames = []


def _stack(frame: FrameType | None) -> list[tuple[str, int, str]]:
    """``(file, line, function)`` of *frame* and its callers, outermost first."""
    frames = []
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames
