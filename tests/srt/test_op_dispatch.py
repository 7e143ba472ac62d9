"""The op-dispatch engine: resolution order, and the platform's key in fresh interpreters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sglang.runtime.op_dispatch import (
    DispatchSource,
    clear_op_impls,
    get_op_impl,
    register_op_impl,
    registered_op_impls,
    resolve_forward,
)
from tests.support.dists import Dist, Site, run_python


class Op:
    def forward_native(self, x: int) -> str:
        return f"native:{x}"

    def forward_cpu(self, x: int) -> str:
        return f"cpu:{x}"


class OotOp(Op):
    def forward_oot(self, x: int) -> str:
        return f"oot:{x}"


@pytest.fixture(autouse=True)
def clean_registry() -> Iterator[None]:
    saved = registered_op_impls()
    clear_op_impls()
    yield
    clear_op_impls()
    for (name, key), impl in saved.items():
        register_op_impl(name, key, impl)


def test_registered_impl_wins_and_receives_the_op() -> None:
    op = OotOp()
    seen: list[object] = []

    @register_op_impl("test_op", "cpu")
    def impl(received: object, x: int) -> str:
        seen.append(received)
        return f"registered:{x}"

    resolution = resolve_forward(op, "test_op", "cpu", out_of_tree=True)
    assert resolution.source is DispatchSource.REGISTERED
    assert resolution.forward(3) == "registered:3"
    assert seen == [op]
    assert get_op_impl("test_op", "cpu") is impl


def test_forward_key_method_before_oot_and_native() -> None:
    resolution = resolve_forward(OotOp(), "test_op", "cpu", out_of_tree=True)
    assert resolution.source is DispatchSource.METHOD
    assert resolution.forward(1) == "cpu:1"


def test_forward_oot_only_for_out_of_tree_platforms() -> None:
    assert resolve_forward(OotOp(), "test_op", "npu", out_of_tree=True).forward(2) == "oot:2"
    in_tree = resolve_forward(OotOp(), "test_op", "npu", out_of_tree=False)
    assert in_tree.source is DispatchSource.NATIVE
    assert in_tree.forward(2) == "native:2"


def test_native_key_and_missing_methods_fall_back_to_native() -> None:
    assert resolve_forward(Op(), "test_op", "native", out_of_tree=False).forward(0) == "native:0"
    assert resolve_forward(Op(), "test_op", "demo", out_of_tree=True).forward(0) == "native:0"


def test_registration_for_another_key_is_ignored() -> None:
    register_op_impl("test_op", "cuda", lambda op, x: "cuda")
    assert (
        resolve_forward(Op(), "test_op", "cpu", out_of_tree=False).source is DispatchSource.METHOD
    )


def test_non_callable_registration_is_rejected() -> None:
    with pytest.raises(TypeError, match="must be callable"):
        register_op_impl("test_op", "cpu", "not a function")  # type: ignore[call-overload]


def test_registry_import_is_cheap() -> None:
    code = "import sys, sglang.runtime.op_dispatch; print('torch' in sys.modules)"
    assert run_python(code).check().stdout.strip() == "False"


# -- CustomOp under real platforms (fresh interpreters) ---------------------------------

PROBE = """
    import json, torch
    from sglang.srt.layers.activation import SiluAndMul
    from sglang.srt.layers.layernorm import RMSNorm
    %s
    norm, act = RMSNorm(8), SiluAndMul()
    x = torch.randn(3, 8)
    expected = torch.nn.functional.silu(x[:, :4]) * x[:, 4:]
    print("RESULT " + json.dumps({
        "norm": norm.dispatch_source.value,
        "act": act.dispatch_source.value,
        "key": norm.resolution.key,
        "act_ok": bool(torch.allclose(act(x), expected)),
        "norm_ok": norm(x).shape == x.shape,
        "calls": CALLS if "CALLS" in globals() else None,
    }))
"""


def probe(setup: str = "", *, path: list[Path] | None = None, env: dict[str, str]) -> Any:
    result = run_python(PROBE % setup, path=path or [], env=env).check()
    line = next(x for x in result.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def test_cpu_platform_dispatches_native_without_forward_cpu() -> None:
    out = probe(env={"SGLANG_USE_CPU_ENGINE": "1"})
    assert out["key"] == "cpu"
    assert out["norm"] == out["act"] == "native"
    assert out["act_ok"]


def test_cpu_platform_uses_a_cpu_registration() -> None:
    setup = (
        "from sglang.runtime.op_dispatch import register_op_impl\n"
        "    CALLS = []\n"
        "    register_op_impl('silu_and_mul', 'cpu', "
        "lambda op, x: (CALLS.append(type(op).__name__), op.forward_native(x))[1])\n"
    )
    out = probe(setup, env={"SGLANG_USE_CPU_ENGINE": "1"})
    assert out["act"] == "registered"
    assert out["norm"] == "native"
    assert out["calls"] == ["SiluAndMul"]


VENDOR_PLATFORM = """
    from sglang.runtime.op_dispatch import register_op_impl
    from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

    CALLS = []


    class VendorPlatform(SRTPlatform):
        _enum = PlatformEnum.OOT
        device_name = "vendor"
        device_type = "cpu"

        def get_dispatch_key_name(self):
            return "vendor"


    @register_op_impl("rms_norm", "vendor")
    def vendor_rms_norm(op, x, residual=None):
        CALLS.append("rms_norm")
        return op.forward_native(x, residual)


    def activate():
        return "vendor_plat:VendorPlatform"
"""


@pytest.mark.parametrize("with_oot", [False, True])
def test_plugin_platform_registration_and_forward_oot(tmp_path: Path, with_oot: bool) -> None:
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "vendor-plat",
            entry_points={"sglang.srt.platforms": {"vendor": "vendor_plat:activate"}},
            modules={"vendor_plat.py": VENDOR_PLATFORM},
        )
    )
    setup = "from vendor_plat import CALLS\n"
    if with_oot:
        setup += "    SiluAndMul.forward_oot = lambda self, x: self.forward_native(x)\n"
    out = probe(setup, path=[site.root], env={})
    assert out["key"] == "vendor"
    assert out["norm"] == "registered"
    assert out["act"] == ("oot" if with_oot else "native")
    assert out["act_ok"]
    assert out["calls"] == ["rms_norm"]


def test_an_op_dispatched_by_name_needs_op_name() -> None:
    from sglang.runtime.op_dispatch.custom_op import CustomOp

    class Named(CustomOp):
        op_name = "named"

    class Nameless(CustomOp):
        pass

    assert Named.dispatch_name() == "named"
    with pytest.raises(TypeError, match=r"Nameless sets no op_name: an op dispatched by name"):
        Nameless.dispatch_name()
