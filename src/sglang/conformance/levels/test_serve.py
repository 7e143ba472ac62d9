"""Serve [SRV]: each serve backend honours the ``ServeBackend`` contract.

The backends are those ``sglang serve --model-type`` offers, the in-tree
ones and the ``sglang.serve_backends`` entry points
(``--sglang-serve-backend NAME``, or every installed one with
``--sglang-runtime all``); each is probed in a fresh interpreter.
"""

from __future__ import annotations

from typing import Any

import pytest

from sglang.conformance import _probes
from sglang.conformance._clauses import clause

__all__ = ["TestServe"]


def _facts(name: str) -> dict[str, Any]:
    from sglang.cli.serve._registry import read_registry
    from sglang.sdk.constants import SERVE_BACKENDS_GROUP

    registry = read_registry(warn=False)
    known = {record.name for record in registry.records()}
    if name not in known | {rejection.name for rejection in registry.rejections}:
        pytest.fail(
            f"no serve backend is named {name!r}: neither an in-tree one nor a "
            f"{SERVE_BACKENDS_GROUP} entry point"
        )
    return _probes.serve(name)


def _made(facts: dict[str, Any]) -> None:
    if facts["factory_error"] is not None or "api_version" not in facts:
        pytest.skip("the factory did not return a ServeBackend (see SRV-01)")


def _new(before: dict[str, Any], after: dict[str, Any]) -> dict[str, object]:
    changes: dict[str, object] = {}
    if after["threads"] > before["threads"]:
        changes["threads"] = after["threads"] - before["threads"]
    for key in ("torch_devices", "driver_libraries", "device_files"):
        new = sorted(set(after[key]) - set(before[key]))
        if new:
            changes[key] = new
    return changes


class TestServe:
    """The serve backend's factory, ``run(--help)`` and ``detect()``."""

    @clause("SRV-01")
    def test_factory(self, sglang_serve_backend: str) -> None:
        """The factory returns a ``ServeBackend`` whose ``api_version`` this sglang supports."""
        facts = _facts(sglang_serve_backend)
        assert facts["factory_error"] is None, f"the factory raised {facts['factory_error']}"
        assert "api_version" in facts, (
            f"the factory returned a {facts['backend_type']}, not a sglang.sdk.ServeBackend"
        )
        assert facts["api_version"] in facts["supported"]

    @clause("SRV-02")
    def test_help(self, sglang_serve_backend: str) -> None:
        """``run()`` with ``--help`` exits 0 (``SystemExit(0)`` counts) and starts nothing."""
        facts = _facts(sglang_serve_backend)
        _made(facts)
        help_ = facts["help"]
        assert help_["error"] is None, f"run(--help) raised {help_['error']}"
        assert help_["code"] == 0, f"run(--help) exited {help_['code']!r}"
        started = _new(help_["before"], help_["after"])
        assert not started, f"run(--help) started something: {started}"
        assert not help_["children"], (
            f"run(--help) started something: {started or ''} {help_['children'] or ''}"
        )

    @clause("SRV-03")
    def test_detect(self, sglang_serve_backend: str) -> None:
        """``detect()`` returns a ``ServeBackendDetection``; no thread, device or socket."""
        facts = _facts(sglang_serve_backend)
        _made(facts)
        if not facts["has_detect"]:
            pytest.skip("the backend has no detector: it is reachable only by explicit selection")
        detect = facts["detect"]
        assert detect["error"] is None, f"detect() raised {detect['error']}"
        bad = [result for result in detect["results"] if result.startswith("bad ")]
        assert not bad, f"detect() returned {bad}; return a sglang.sdk.ServeBackendDetection"
        effects = _new(detect["before"], detect["after"])
        if detect["network"]:
            effects["network"] = detect["network"]
        assert not effects, f"detect() has side effects: {effects}"
