"""The activation gate: once per process, re-entrancy, waiting threads, remembered failure."""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable

import pytest

from sglang.runtime import gate as gate_module
from sglang.runtime.gate import GateState, OnceGate

GATE_FILE = gate_module.__file__
TIMEOUT = 30.0  # a safety net against hangs, never an assertion about speed


class Counter:
    """A step that counts its calls and returns a fixed result."""

    def __init__(self, result: object = "result") -> None:
        self.calls = 0
        self.result = result

    def __call__(self) -> object:
        self.calls += 1
        return self.result


def state(gate: OnceGate[object] | OnceGate[str] | OnceGate[None]) -> GateState:
    """The gate's state, read through a call so that type checkers do not narrow it."""
    return gate.state


def start(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def join_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "a thread is stuck in the gate"


def wait_until_blocked_in_run(threads: list[threading.Thread]) -> None:
    """Wait until every thread's current frame is inside ``OnceGate.run``.

    Observes the threads' stacks (no sleep-based guess): each one has entered
    ``run`` and is waiting for the lock the running step holds.
    """
    idents = {thread.ident for thread in threads}
    done = threading.Event()
    for _ in range(100_000):
        frames = sys._current_frames()
        inside = {
            ident
            for ident in idents
            if ident in frames
            and any(
                frame.f_code.co_name == "run" and frame.f_code.co_filename == GATE_FILE
                for frame, _ in traceback.walk_stack(frames[ident])
            )
        }
        if inside == idents:
            return
        done.wait(0.001)
    raise AssertionError("threads never reached OnceGate.run")


def test_runs_once_and_returns_the_result_every_time() -> None:
    step = Counter({"platform": "cpu"})
    gate = OnceGate("test activation", step)
    assert state(gate) is GateState.PENDING
    first = gate.run()
    assert first == {"platform": "cpu"}
    assert gate.run() is first
    assert gate.run() is first
    assert step.calls == 1
    assert state(gate) is GateState.DONE
    assert gate.error is None
    assert gate.name == "test activation"


def test_sixteen_threads_run_the_step_once_and_all_see_the_result() -> None:
    step = Counter(object())
    gate: OnceGate[object] = OnceGate("threads", step)
    barrier = threading.Barrier(16)
    results: list[object] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait(TIMEOUT)
        result = gate.run()
        with lock:
            results.append(result)

    join_all([start(worker) for _ in range(16)])
    assert step.calls == 1
    assert results == [step.result] * 16


def test_other_threads_wait_for_the_running_step() -> None:
    entered = threading.Event()
    release = threading.Event()
    order: list[str] = []
    lock = threading.Lock()

    def step() -> str:
        entered.set()
        assert release.wait(TIMEOUT)
        with lock:
            order.append("step finished")
        return "resolved"

    gate = OnceGate("slow activation", step)
    outcomes: list[object] = []

    def first() -> None:
        outcomes.append(gate.run())

    def waiter() -> None:
        result = gate.run()
        with lock:
            order.append("waiter returned")
            outcomes.append(result)

    owner = start(first)
    assert entered.wait(TIMEOUT)
    assert state(gate) is GateState.RUNNING
    waiters = [start(waiter) for _ in range(8)]
    wait_until_blocked_in_run(waiters)
    assert order == []  # everyone is inside run(), nobody got past the running step
    assert not gate.is_reentrant()  # this thread is not the owner
    release.set()
    join_all([owner, *waiters])
    assert order == ["step finished"] + ["waiter returned"] * 8
    assert outcomes == ["resolved"] * 9


def test_reentrant_call_returns_none_and_outer_call_finishes() -> None:
    inner: list[object] = []
    reentrant: list[bool] = []

    def step() -> str:
        reentrant.append(gate.is_reentrant())
        inner.append(gate.run())  # e.g. a plugin callback that triggers loading again
        return "outer"

    gate = OnceGate("reentrant", step)
    assert gate.run() == "outer"
    assert inner == [None]
    assert reentrant == [True]
    assert not gate.is_reentrant()
    assert gate.run() == "outer"


class ActivationError(RuntimeError):
    pass


def test_failure_is_remembered_and_the_same_exception_re_raised() -> None:
    calls = 0

    def step() -> str:
        nonlocal calls
        calls += 1
        raise ActivationError("vendor runtime broken")

    gate = OnceGate("failing activation", step)
    with pytest.raises(ActivationError) as first:
        gate.run()
    assert state(gate) is GateState.FAILED
    assert gate.error is first.value
    depths: list[int] = []
    for _ in range(3):
        with pytest.raises(ActivationError) as again:
            gate.run()
        assert again.value is first.value
        depths.append(len(traceback.extract_tb(again.value.__traceback__)))
    assert len(set(depths)) == 1  # the traceback does not grow on every re-raise
    assert calls == 1

    from_thread: list[BaseException] = []

    def other() -> None:
        try:
            gate.run()
        except BaseException as exc:
            from_thread.append(exc)

    join_all([start(other)])
    assert from_thread == [first.value]
    assert calls == 1


def test_failure_seen_by_waiting_threads_without_a_retry() -> None:
    entered = threading.Event()
    release = threading.Event()
    calls = 0

    def step() -> None:
        nonlocal calls
        calls += 1
        entered.set()
        assert release.wait(TIMEOUT)
        raise ActivationError("init_backend failed")

    gate = OnceGate("failing backend", step)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def caller() -> None:
        try:
            gate.run()
        except BaseException as exc:
            with lock:
                errors.append(exc)

    owner = start(caller)
    assert entered.wait(TIMEOUT)
    waiters = [start(caller) for _ in range(4)]
    wait_until_blocked_in_run(waiters)
    release.set()
    join_all([owner, *waiters])
    assert calls == 1
    assert len(errors) == 5
    assert all(error is errors[0] for error in errors)
    assert isinstance(errors[0], ActivationError)


def test_base_exceptions_are_remembered_too() -> None:
    def step() -> None:
        raise KeyboardInterrupt

    gate = OnceGate("interrupted", step)
    with pytest.raises(KeyboardInterrupt):
        gate.run()
    with pytest.raises(KeyboardInterrupt):
        gate.run()
    assert state(gate) is GateState.FAILED


def first_caller_of(gate: OnceGate[str]) -> str | None:
    return gate.run()


def test_first_stack_records_the_first_caller() -> None:
    gate = OnceGate("stack", lambda: "done")
    assert not gate.first_stack
    first_caller_of(gate)
    assert "first_caller_of" in gate.first_stack[-1]
    assert __file__.rsplit(".", 1)[0] in gate.first_stack[-1]
    gate.run()  # later callers do not overwrite it
    assert "first_caller_of" in gate.first_stack[-1]


def test_reset_forgets_result_and_failure() -> None:
    outcomes: list[object] = [ActivationError("first"), "second"]

    def step() -> object:
        outcome = outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    gate = OnceGate("reset", step)
    with pytest.raises(ActivationError):
        gate.run()
    gate.reset()
    assert state(gate) is GateState.PENDING
    assert gate.error is None
    assert not gate.first_stack
    assert gate.run() == "second"
    assert state(gate) is GateState.DONE
