"""Each deliberately broken plugin is caught by its clause and by no other.

Each case installs one package of ``broken/conformance_broken`` as a real
distribution (one entry point) and runs ``pytest --sglang-conformance``
in a fresh interpreter, then reads the JSON report: exactly the expected
clauses fail. The end-to-end level is deselected (``-k "not E2E"``): it
would fail too for the runtime defects (a lossy KV pool, a wrong op), as
it should, and it is the slow level; the CPU and demo self-tests run it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from sglang.sdk.constants import (
    DIFFUSION_PLATFORMS_GROUP,
    SERVE_BACKENDS_GROUP,
    SRT_PLATFORMS_GROUP,
)
from tests.conformance.harness import BROKEN, run_suite
from tests.support.dists import Dist


@dataclass(frozen=True)
class Case:
    callback: str
    failed: frozenset[str]
    group: str = SRT_PLATFORMS_GROUP
    args: tuple[str, ...] = ()
    xfailed: frozenset[str] = frozenset()
    passed: frozenset[str] = frozenset()


_PLATFORM = ("--sglang-platform", "broken", "-k", "not E2E")
_SERVE = ("--sglang-serve-backend", "broken", "--sglang-platform", "cpu", "-k", "SRV")

CASES = {
    "good": Case("good", frozenset()),
    "activate imports torch": Case("imports_torch", frozenset({"ACT-03"})),
    "activate initialises device state": Case(
        "initialises_device",
        frozenset({"ACT-04"}),
        args=("--sglang-conformance-expect", str(BROKEN / "conformance_broken/expect-device.toml")),
        xfailed=frozenset({"ACT-03"}),
    ),
    "slow activate": Case("slow", frozenset({"ACT-06"})),
    "activate returns the class": Case("returns_class", frozenset({"ACT-01"})),
    "signature drift": Case("signature_drift", frozenset({"CON-01"})),
    "public helper": Case("public_helper", frozenset({"CON-04"})),
    "identity lies": Case("identity_lies", frozenset({"CON-03"})),
    "memory figures lie": Case("memory_lies", frozenset({"DEV-01"})),
    "wrong return type": Case("wrong_type", frozenset({"DEV-03"})),
    # the prefix-sharing clause reads the pool too: a lost write changes its logits
    "KV pool loses writes": Case("lossy_kv_pool", frozenset({"SUB-02", "SUB-08"})),
    "numerically wrong op": Case("wrong_op", frozenset({"OPS-01"})),
    "attention blind to shared and cached pages": Case(
        "prefix_blind_attention", frozenset({"SUB-08"})
    ),
    "invalid server args": Case("bad_server_args", frozenset({"LIF-01"})),
    "numerically wrong diffusion op": Case(
        "wrong_diffusion_op",
        frozenset({"OPS-04"}),
        DIFFUSION_PLATFORMS_GROUP,
        args=("--sglang-runtime", "diffusion"),
        passed=frozenset({"OPS-05"}),
    ),
    "graph capture declared, nothing captured": Case(
        "graphs_never_captured", frozenset({"SUB-07"})
    ),
    "graph replays keep the captured batch's inputs": Case(
        "stale_graph_inputs", frozenset({"SUB-07"})
    ),
    "graph capture declared and replayed": Case(
        "good_graphs", frozenset(), passed=frozenset({"SUB-07"})
    ),
    "serve backend, good": Case("good", frozenset(), SERVE_BACKENDS_GROUP),
    "serve backend starts a thread in detect": Case(
        "thread_in_detect", frozenset({"SRV-03"}), SERVE_BACKENDS_GROUP
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_broken_plugin_is_caught_by_its_clause_only(tmp_path: Path, case: Case) -> None:
    module = (
        "conformance_broken.serve" if case.group == SERVE_BACKENDS_GROUP else "conformance_broken"
    )
    dist = Dist(
        "conformance-broken",
        "0.0.1",
        entry_points={case.group: {"broken": f"{module}:{case.callback}"}},
    )
    args = (_SERVE if case.group == SERVE_BACKENDS_GROUP else _PLATFORM) + case.args
    run = run_suite(tmp_path, args, dists=[dist], sources=[BROKEN])
    assert run.failed() == case.failed, run.output[-6000:]
    # caught by the clause's check, not by the broken fixture itself going stale
    assert "AttributeError" not in run.output, run.output[-6000:]
    xfailed = {cid for cid, outcome in run.outcome_map().items() if outcome == "xfailed"}
    assert xfailed == case.xfailed, run.output[-6000:]
    assert run.returncode == (1 if case.failed else 0), run.output[-3000:]
    passed = {cid for cid, outcome in run.outcome_map().items() if outcome == "passed"}
    assert passed, "a broken plugin still passes the clauses its defect does not touch"
    assert case.passed <= passed, run.output[-6000:]
