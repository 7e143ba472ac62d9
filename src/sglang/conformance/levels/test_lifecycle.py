"""Lifecycle [LIF]: server-argument defaults, backend initialisation, the platform's plugins."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sglang.conformance import _probes
from sglang.conformance._clauses import clause
from sglang.conformance._target import Target

__all__ = ["TestLifecycle"]


def _facts(*args: str) -> dict[str, Any]:
    proc = _probes.run_python(["-m", "sglang.conformance._lifecycle", *args])
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith('{"facts"'):
            facts: dict[str, Any] = json.loads(line)["facts"]
            return facts
    pytest.fail(
        f"the lifecycle probe exited {proc.returncode}:\n"
        f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    )


class TestLifecycle:
    """What the runtime does with the platform while it starts."""

    @clause("LIF-01")
    def test_server_args_defaults_are_valid(
        self, sglang_target: Target, sglang_platform: Any
    ) -> None:
        """SRT: ``ServerArgs`` built under the platform passes ``check_server_args()``.

        Diffusion has no reference server arguments yet: its hook must accept
        an arguments object and return ``None``.
        """
        if sglang_target.runtime == "srt":
            from sglang.srt.server_args import ServerArgs

            args = ServerArgs(model_path="conformance-model")  # runs apply_server_args_defaults
            try:
                args.check_server_args()
            except ValueError as exc:
                pytest.fail(f"apply_server_args_defaults() left invalid server arguments: {exc}")
            return
        import types

        result = sglang_platform.apply_server_args_defaults(types.SimpleNamespace())
        assert result is None, f"apply_server_args_defaults() returned {result!r}, not None"

    @clause("LIF-02")
    def test_init_backend_once_per_worker(
        self, sglang_target: Target, sglang_platform: Any
    ) -> None:
        """Two spawned workers each run ``init_backend()`` once, before any model module."""
        facts = _facts("init", sglang_target.runtime)
        assert facts["error"] is None, f"a worker failed to start: {facts['error']}"
        for rank, worker in enumerate(facts["workers"]):
            assert worker["calls"] == 1, (
                f"worker {rank} ran init_backend() {worker['calls']} times; the runtime's "
                f"initialize_current_platform() must run it exactly once per process"
            )
            assert not worker["models_imported"], (
                f"worker {rank}: model modules were imported before init_backend(): "
                f"{worker['models_imported']}"
            )

    @clause("LIF-03")
    def test_own_plugins_load(self, sglang_target: Target, sglang_platform: Any) -> None:
        """The general plugins of the platform's distribution load and apply as at start-up."""
        from sglang.runtime.discovery import entry_point_index

        record = sglang_target.entry_point
        if record is None:
            pytest.skip("a built-in platform is selected: no platform distribution")
        own = [
            plugin.name
            for plugin in entry_point_index().group(sglang_target.spec.plugins_group)
            if plugin.dist_name == record.dist_name
        ]
        if not own:
            pytest.skip(f"{record.dist_name} ships no {sglang_target.spec.plugins_group} plugin")
        facts = _facts("plugins", sglang_target.runtime)
        assert facts["error"] is None, f"loading the general plugins failed: {facts['error']}"
