"""The contract as data: hook-target signatures, what serve calls, the manifest snapshot.

* every documented hook target's declared signature is the real function's;
* every operation whose ``serve`` entry says a default ``sglang serve``
  calls it is called by the runtime's code, and every operation with a
  raising default that the code calls has a ``serve`` entry;
* the contract manifest equals the committed snapshot
  ``tests/unit/contract-manifest.json``: a contract change is a visible
  diff (regenerate it with ``sglang plugins contract --json`` and add a
  release note under *Contract changes*).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sglang.runtime.checks.manifest import contract_manifest
from sglang.runtime.checks.signatures import (
    format_signature,
    near_miss,
    normalise_annotation,
    override_problems,
    signature_drift,
)
from sglang.runtime.resolver import resolve
from sglang.runtime.spec import DIFFUSION, SRT, RuntimeSpec
from sglang.sdk.targets import HOOK_TARGETS, documented_target
from tests.support.dists import REPO_ROOT, run_python

SNAPSHOT = Path(__file__).with_name("contract-manifest.json")
SRC = REPO_ROOT / "src" / "sglang"
RAISE = "raise NotImplementedError"

# Where each runtime's reference code calls its platform (platform modules excluded).
CALL_SITES = {
    "srt": [SRC / "srt", SRC / "runtime" / "op_dispatch", SRC / "runtime" / "selection"],
    "diffusion": [
        SRC / "multimodal_gen",
        SRC / "runtime" / "op_dispatch",
        SRC / "runtime" / "selection",
    ],
}


# -- documented hook targets -------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(HOOK_TARGETS))
def test_each_documented_target_declares_the_real_signature(path: str) -> None:
    target = HOOK_TARGETS[path]
    function = resolve(path, what="hook target")
    assert callable(function)
    assert format_signature(function) == target.signature
    prefix = {"srt": "sglang.srt.", "diffusion": "sglang.multimodal_gen."}[target.runtime]
    assert path.startswith(prefix)
    assert target.versions.current == target.api_version


def test_documented_targets_are_found_in_either_spelling() -> None:
    target = documented_target("sglang.srt.managers.tp_worker:TpModelWorker.__init__")
    assert target is not None
    assert target.path == "sglang.srt.managers.tp_worker.TpModelWorker.__init__"
    assert documented_target("sglang.srt.managers.tp_worker.TpModelWorker.release") is None


# -- what a default sglang serve calls --------------------------------------------------------


def _code(spec: RuntimeSpec) -> str:
    files = [
        path
        for root in CALL_SITES[spec.name]
        for path in sorted(root.rglob("*.py"))
        if "platforms" not in path.parts
    ]
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


@pytest.mark.parametrize("spec", [SRT, DIFFUSION], ids=["srt", "diffusion"])
def test_the_serve_column_matches_the_call_sites(spec: RuntimeSpec) -> None:
    code = _code(spec)
    for op in spec.operations:
        called = re.search(rf"\b{op.name}\(", code) is not None
        if op.serve and op.name != "dispatch_key":  # an attribute, read through its getter
            assert called, f"{op.name} says serve calls it ({op.serve}) but nothing does"
        if called and op.default == RAISE:
            assert op.serve, f"{op.name} raises by default and is called, but has no serve entry"


# -- signatures ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("Optional[torch.device]", "None|device"),
        ("torch.device | None", "None|device"),
        ("typing.Union[int, str]", "int|str"),
        ("dict[str, Optional[int]]", "dict[str,None|int]"),
        ("'tuple[int, int]'", "tuple[int,int]"),
    ],
)
def test_annotations_compare_in_one_spelling(written: str, normal: str) -> None:
    assert normalise_annotation(written) == normal


class Base:
    def query(self, device_id: int = 0, *, flag: bool = False) -> int:
        return device_id


class Same(Base):
    def query(self, device_id: int = 0, *, flag: bool = False) -> int:
        return device_id


class Drifted(Base):
    def query(self, device_id: str = "0", /, *, flag: bool = True) -> str:  # type: ignore[override]
        return device_id


def test_signature_drift_names_each_difference() -> None:
    assert signature_drift(Base.query, Same.query) == []
    assert override_problems(Base.query, Same.query) == []
    assert signature_drift(Base.query, Drifted.query) == [
        "parameter 'device_id' is positional-only, not positional or keyword",
        "parameter 'device_id' defaults to '0', not 0",
        "parameter 'device_id' is annotated 'str', not 'int'",
        "parameter 'flag' defaults to True, not False",
        "returns 'str', not 'int' (fine only for a subtype; mypy and pyright decide)",
    ]
    assert format_signature(Drifted.query) == (
        "(self, device_id: str = '0', /, *, flag: bool = True) -> str"
    )


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("get_device_nmae", "get_device_name"),
        ("get_devce_name", "get_device_name"),
        ("supports_cuda_graph", "support_cuda_graph"),
        ("get_device_names_of_all", None),
        ("helper", None),
        ("get_device_name", None),
    ],
)
def test_near_misses(name: str, meant: str | None) -> None:
    contract = ["get_device_name", "get_device", "support_cuda_graph"]
    assert near_miss(name, contract) == meant


# -- the manifest ----------------------------------------------------------------------------------


def test_the_manifest_is_the_committed_snapshot() -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert contract_manifest() == snapshot, (
        "the contract changed: review the diff, regenerate the snapshot with "
        "`sglang plugins contract --json > tests/unit/contract-manifest.json` and add a "
        "release note under Contract changes (docs/project/changelog.rst)"
    )


def test_the_manifest_covers_every_part_of_the_contract() -> None:
    manifest = contract_manifest()
    srt = {m["name"]: m for m in manifest["platforms"]["srt"]["methods"]}
    assert srt["get_available_memory"] == {
        "name": "get_available_memory",
        "owner": "sglang.sdk.device.DeviceMixin",
        "signature": "(self, device_id: int = 0) -> tuple[int, int]",
        "status": "planned",
        "default": RAISE,
        "serve": "unless --max-total-tokens is given",
        "version": 1,
    }
    assert [t["path"] for t in manifest["hook_targets"]] == list(HOOK_TARGETS)
    assert set(manifest["api_versions"]) == {"serve-backend", "srt-platform", "diffusion-platform"}
    assert "SGLANG_PLATFORM" in manifest["environment_variables"].values()
    assert "sglang.serve_backends" in manifest["entry_point_groups"]


def test_the_cli_prints_the_manifest_without_torch() -> None:
    result = run_python(
        """
        import json, sys, io, contextlib
        from sglang.cli.main import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["plugins", "contract", "--json"])
        print(json.dumps([json.loads(out.getvalue()), "torch" in sys.modules]))
        """
    ).check()
    printed, torch = json.loads(result.stdout)
    assert printed == contract_manifest()
    assert torch is False
