"""The suite's parts on their own: the registry, the expectations file, the override rule."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

from sglang.conformance import CLAUSES, Expectations, ExpectationsError, Level, load_expectations
from sglang.conformance._clauses import clause_of
from sglang.conformance._probes import torch_import_seconds
from sglang.conformance._session import LEVEL_MODULES
from sglang.conformance._signatures import conforms, override_problems, return_problem
from sglang.sdk.capabilities import Capability, declared_capabilities
from sglang.sdk.device import DeviceCapability


def _tested_clauses() -> list[str]:
    found = []
    for name in LEVEL_MODULES:
        module = importlib.import_module(f"sglang.conformance.levels.{name.removesuffix('.py')}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for _, function in inspect.getmembers(cls, inspect.isfunction):
                item = clause_of(function)
                if item is not None:
                    found.append(item.id)
    return found


def test_every_clause_has_exactly_one_test() -> None:
    tested = _tested_clauses()
    assert sorted(tested) == sorted(CLAUSES)
    assert len(tested) == len(set(tested))


def test_clause_ids_name_their_level_and_are_numbered_in_order() -> None:
    by_level: dict[Level, list[int]] = {}
    for clause_id, item in CLAUSES.items():
        prefix, number = clause_id.split("-")
        assert prefix == item.level.prefix
        by_level.setdefault(item.level, []).append(int(number))
    for numbers in by_level.values():
        assert numbers == list(range(1, len(numbers) + 1))
    assert list(by_level) == list(Level)  # every level has clauses, in level order


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "expect.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_expectations_are_read_by_clause_id(tmp_path: Path) -> None:
    path = _write(
        tmp_path, '[xfail]\nACT-03 = "needs torch"\n[skip]\nE2E-02 = " one card "\nNOPE-1 = "x"\n'
    )
    expectations = load_expectations(path)
    assert expectations.xfail == {"ACT-03": "needs torch"}
    assert expectations.skip == {"E2E-02": "one card", "NOPE-1": "x"}
    assert expectations.unknown == ("NOPE-1",)
    assert load_expectations(None) == Expectations()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[xfail\n", "not valid TOML"),
        ('[other]\nA = "b"\n', "unknown table(s) other"),
        ("[xfail]\nACT-01 = 3\n", "needs a non-empty reason"),
        ('[xfail]\nACT-01 = ""\n', "needs a non-empty reason"),
        ('[xfail]\nACT-01 = "a"\n[skip]\nACT-01 = "b"\n', "under both"),
        ('xfail = "flat"\n', "must be a table"),
    ],
)
def test_bad_expectations_say_why(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ExpectationsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_expectations(_write(tmp_path, text))


def test_a_missing_expectations_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ExpectationsError, match="cannot read"):
        load_expectations(str(tmp_path / "absent.toml"))


class Base:
    def query(self, device_id: int = 0) -> int:
        return device_id

    def method(self, quant: str) -> None:
        pass

    def keyword(self, *, flag: bool = False) -> DeviceCapability | None:
        return None


class Compatible(Base):
    def query(self, device_id: int = 0, extra: int = 1) -> int:
        return device_id

    def method(self, quant: str, *args: Any, **kwargs: Any) -> None:
        pass

    def keyword(self, **kwargs: Any) -> DeviceCapability:
        return DeviceCapability(1, 0)


class Drifted(Base):
    def query(self, device_id: int) -> int:  # type: ignore[override]
        return device_id

    def method(self, method: str) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        pass

    def keyword(self, *, flag: bool = False, more: int) -> tuple[int, int]:  # type: ignore[override]
        return (1, 0)


@pytest.mark.parametrize("name", ["query", "method", "keyword"])
def test_compatible_overrides_pass(name: str) -> None:
    assert override_problems(getattr(Base, name), getattr(Compatible, name)) == []
    assert return_problem(getattr(Base, name), getattr(Compatible, name)) is None


def test_drifted_overrides_are_named() -> None:
    assert override_problems(Base.query, Drifted.query) == [
        "makes parameter 'device_id' required (the base has a default)"
    ]
    assert override_problems(Base.method, Drifted.method) == [
        "drops parameter 'quant'",
        "adds required parameter 'method'",
    ]
    assert override_problems(Base.keyword, Drifted.keyword) == ["adds required parameter 'more'"]
    problem = return_problem(Base.keyword, Drifted.keyword)
    assert problem is not None
    assert "tuple[int, int]" in problem


@pytest.mark.parametrize(
    ("value", "annotation", "ok"),
    [
        (True, bool, True),
        (0, bool, False),
        (3, int, True),
        (True, int, False),
        (3, float, True),
        (None, int | None, True),
        ("x", int | None, False),
        (DeviceCapability(9, 0), DeviceCapability | None, True),
        ((1, 0), DeviceCapability | None, False),
        ((1, 2), tuple[int, int], True),
        ((1,), tuple[int, int], False),
        (int, type[object], True),
        (3, type[object], False),
    ],
)
def test_conforms(value: object, annotation: object, ok: bool) -> None:
    assert conforms(value, annotation) is ok


def test_torch_import_seconds_reads_importtime_output() -> None:
    text = (
        "import time:       10 |         20 |   torch.x\nimport time:      5 |    2500000 | torch\n"
    )
    assert torch_import_seconds(text) == 2.5
    assert torch_import_seconds("nothing") == 0.0


class Flags:
    def support_cuda_graph(self) -> bool:
        return True

    def supports_fp8(self) -> bool:
        raise RuntimeError("no driver")


class Listed(Flags):
    _capabilities = frozenset({Capability.MULTI_DEVICE})


def test_declared_capabilities_read_flags_and_attribute() -> None:
    assert declared_capabilities(Flags()) == {Capability.GRAPH_CAPTURE}
    assert declared_capabilities(Listed()) == {Capability.GRAPH_CAPTURE, Capability.MULTI_DEVICE}
    assert declared_capabilities(object()) == frozenset()


def test_a_malformed_capability_attribute_is_a_type_error() -> None:
    class Bad:
        _capabilities = frozenset({"multi-device"})

    with pytest.raises(TypeError, match=r"frozenset of sglang\.sdk\.capabilities\.Capability"):
        declared_capabilities(Bad())
