"""Activation [ACT]: each platform callback is import-safe, checked in a fresh process."""

from __future__ import annotations

import pytest

from sglang.conformance import _probes
from sglang.conformance._clauses import clause
from sglang.conformance._target import Target

__all__ = ["TestActivation"]

ACTIVATION_SECONDS = 1.0
"""The most an activation callback may take, import included."""


def _facts(target: Target) -> dict[str, object]:
    if target.entry_point is None:
        if target.error is not None:
            pytest.skip(f"selection failed before any callback ran (see ACT-08): {target.error}")
        pytest.skip("a built-in platform is selected: there is no activation callback")
    return _probes.activation(target.runtime, target.entry_point.name)


def _state(facts: dict[str, object], when: str) -> dict[str, object]:
    state = facts[when]
    assert isinstance(state, dict)
    return state


def _called(facts: dict[str, object]) -> None:
    if facts["error"] is not None:
        pytest.skip(f"the callback raised (see ACT-01): {facts['error']}")


class TestActivation:
    """The activation callback of the selected plugin, run in a fresh interpreter."""

    @clause("ACT-01")
    def test_returns_str_or_none(self, sglang_target: Target) -> None:
        """The callback returns a non-empty ``str`` or ``None`` and raises nothing."""
        facts = _facts(sglang_target)
        assert facts["error"] is None, f"the activation callback raised {facts['error']}"
        result = facts["result"]
        assert facts["result_type"] in ("str", "NoneType"), (
            f"the activation callback returned a {facts['result_type']} ({result}); "
            f"return the platform class qualname as a str, or None when the device is absent"
        )
        assert result is None or (isinstance(result, str) and result.strip()), (
            "the activation callback returned an empty string; return None instead"
        )

    @clause("ACT-02")
    def test_starts_no_thread(self, sglang_target: Target) -> None:
        """No thread is left running by the import or the call."""
        facts = _facts(sglang_target)
        _called(facts)
        before, after = _state(facts, "before")["threads"], _state(facts, "after")["threads"]
        allowance = facts["torch_threads"]  # torch's own import threads: ACT-03 judges the import
        assert isinstance(before, int)
        assert isinstance(after, int)
        assert isinstance(allowance, int)
        started = after - before - allowance
        assert started <= 0, (
            f"the activation callback started {started} thread(s); start threads in "
            f"init_backend() instead"
        )

    @clause("ACT-03")
    def test_imports_no_torch(self, sglang_target: Target) -> None:
        """Torch is not imported (the seed's pattern imports only the vendor's runtime module)."""
        facts = _facts(sglang_target)
        _called(facts)
        assert not _state(facts, "after")["torch"], (
            "the activation callback imported torch; probe the device without it, or declare "
            "ACT-03 expected-to-fail with the reason in the expectations file"
        )

    @clause("ACT-04")
    def test_initialises_no_device(self, sglang_target: Target) -> None:
        """No device context exists afterwards: torch's view, the driver's libraries and files."""
        facts = _facts(sglang_target)
        _called(facts)
        before, after = _state(facts, "before"), _state(facts, "after")
        news = {
            key: sorted(set(after[key]) - set(before[key]))  # type: ignore[call-overload]
            for key in ("torch_devices", "driver_libraries", "device_files")
        }
        touched = {key: value for key, value in news.items() if value}
        assert not touched, (
            f"the activation callback initialised device state: {touched}; query the device "
            f"without creating a context (for example through the driver's management library "
            f"in a subprocess, or a sysfs file)"
        )

    @clause("ACT-05")
    def test_does_not_touch_current_platform(self, sglang_target: Target) -> None:
        """No runtime's platform selection ran during the call."""
        facts = _facts(sglang_target)
        touched = _state(facts, "after")["selection"]
        assert not touched, (
            f"the activation callback touched current_platform (selection of {touched} ran); "
            f"an activation callback must never read current_platform"
        )

    @clause("ACT-06")
    def test_is_fast(self, sglang_target: Target) -> None:
        """Import and call together take less than a second."""
        facts = _facts(sglang_target)
        seconds, torch_seconds = facts["seconds"], facts["torch_seconds"]
        own = float(seconds) - float(torch_seconds)  # type: ignore[arg-type]  # importing torch is judged by ACT-03
        assert own < ACTIVATION_SECONDS, (
            f"the activation callback took {own:.2f} s (limit {ACTIVATION_SECONDS} s, "
            f"importing torch not counted); defer heavy work to the platform class module"
        )

    @clause("ACT-07")
    def test_names_a_valid_platform_class(self, sglang_target: Target) -> None:
        """The qualname imports to a subclass of the base with ``PlatformEnum.OOT``."""
        facts = _facts(sglang_target)
        _called(facts)
        if facts["result"] is None:
            pytest.skip("the callback returned None: the device is unavailable on this machine")
        if facts["result_type"] != "str":
            pytest.skip("the callback returned no qualname (see ACT-01)")
        assert facts["class_error"] is None, facts["class_error"]

    @clause("ACT-08")
    def test_selection_accepts_the_plugin(self, sglang_target: Target) -> None:
        """Platform selection in the suite's own process succeeds.

        When an earlier activation clause already explains the rejection
        (the callback raised, returned a wrong value, or named a bad class),
        this clause defers to it.
        """
        if sglang_target.is_builtin:
            pytest.skip("a built-in platform is selected: there is no plugin to accept")
        if sglang_target.error is None:
            return
        if sglang_target.entry_point is not None:
            facts = _probes.activation(sglang_target.runtime, sglang_target.entry_point.name)
            explained = (
                facts["error"]
                or facts["class_error"]
                or facts["result_type"]
                not in (
                    "str",
                    "NoneType",
                )
            )
            if explained:
                pytest.skip(f"see ACT-01 and ACT-07: {sglang_target.error}")
        pytest.fail(f"platform selection rejected the plugin: {sglang_target.error}")
