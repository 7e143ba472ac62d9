"""Diffusion custom-op dispatch: every resolution branch, exact-class matching, key errors,
the torch.library op under the platform's dispatch key, all on the shared engine.

One fresh interpreter selects a vendor platform whose dispatch key name the
probe changes between op constructions (``vendor_plat.KEY``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sglang.sdk.constants import DIFFUSION_PLATFORMS_GROUP
from tests.support.dists import Dist, Site, run_python

VENDOR = """
    from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum

    KEY = "vendor"
    INIT = []


    class VendorPlatform(Platform):
        _enum = PlatformEnum.OOT
        device_name = "vendor"
        device_type = "cpu"
        dispatch_key = "CPU"

        def init_backend(self):
            INIT.append(1)

        def get_dispatch_key_name(self):
            return KEY


    def activate():
        return "vendor_plat:VendorPlatform"
"""

PROBE = """
    import json, torch
    import vendor_plat
    from sglang.multimodal_gen.runtime.platforms import initialize_current_platform
    initialize_current_platform()
    import sglang.runtime.op_dispatch as engine
    from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp
    from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm

    class Base(CustomOp):
        op_name = "probe"
        def forward_native(self, x):
            return "native"

    class WithMethods(Base):
        def forward_vendor(self, x):
            return "forward_vendor"
        def forward_cuda(self, x):
            return "forward_cuda"

    class Child(WithMethods):
        pass

    class WithOot(Base):
        def forward_oot(self, x):
            return "forward_oot"

    class SubNorm(RMSNorm):
        pass

    class Nameless(CustomOp):  # upstream's diffusion ops have no op_name
        def forward_native(self, x):
            return "native"

    CustomOp.forward_vendor = lambda self, x: "defined on CustomOp"  # not the op's own chain

    def registered(op, x):
        return "registered " + type(op).__name__

    def use(cls, *args):
        op = cls(*args)
        value = op(torch.ones(2, 4)) if issubclass(cls, RMSNorm) else op(0)
        if isinstance(value, torch.Tensor):
            value = "tensor"
        return [op.dispatch_source.value, value]

    def error(make):
        try:
            make()
        except Exception as exc:
            return [type(exc).__name__, str(exc)]
        return None

    out = {"init": len(vendor_plat.INIT)}
    CustomOp.register_oot_forward(RMSNorm, fn=registered, platform_key="vendor")
    CustomOp.register_oot_forward(Child, fn=registered, platform_key="vendor")
    out["rms"] = use(RMSNorm, 4)
    out["sub_rms"] = use(SubNorm, 4)
    out["with_methods"] = use(WithMethods)
    out["child"] = use(Child)
    out["base"] = use(Base)
    out["with_oot"] = use(WithOot)
    CustomOp.register_oot_forward(Nameless, fn=registered, platform_key="vendor")
    out["nameless"] = [*use(Nameless), Nameless().resolution.op_name]
    out["same_engine"] = (
        issubclass(CustomOp, engine.CustomOp)
        and engine.get_op_impl(RMSNorm, "vendor") is registered
    )
    vendor_plat.KEY = "cuda"
    out["cuda"] = use(WithMethods)
    out["cuda_rms"] = use(RMSNorm, 4)
    vendor_plat.KEY = ""
    out["empty_key"] = error(lambda: Base())
    vendor_plat.KEY = 7
    out["int_key"] = error(lambda: Base())
    register = CustomOp.register_oot_forward
    out["reg_empty"] = error(lambda: register(RMSNorm, fn=registered, platform_key=""))
    out["reg_none"] = error(lambda: register(RMSNorm, fn=registered, platform_key=None))
    out["reg_class"] = error(lambda: register(int, fn=registered, platform_key="v"))
    out["reg_fn"] = error(lambda: register(RMSNorm, fn=3, platform_key="v"))

    vendor_plat.KEY = "other"
    norm = RMSNorm(8, eps=1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 1.5, 8))
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(0))
    reference = x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * norm.weight
    out["native_matches_reference"] = bool(torch.allclose(norm(x), reference, atol=1e-6))
    out["library_key"] = bool(
        torch._C._dispatch_has_kernel_for_dispatch_key("sglang_diffusion::rms_norm", "CPU")
    )
    seen = []

    def backend(gm, inputs):
        seen.extend(str(node.target) for node in gm.graph.nodes if node.op == "call_function")
        return gm.forward

    compiled = torch.compile(lambda t: norm(t) * 2, backend=backend)
    out["compiled_matches"] = bool(torch.allclose(compiled(x), reference * 2, atol=1e-6))
    out["graph_ops"] = seen
    print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    site = Site(tmp_path_factory.mktemp("custom-op") / "site")
    site.install(
        Dist(
            "vendor-plat",
            entry_points={DIFFUSION_PLATFORMS_GROUP: {"vendor": "vendor_plat:activate"}},
            modules={"vendor_plat.py": VENDOR},
        )
    )
    result = run_python(
        PROBE, path=[site.root], env={"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "vendor"}
    )
    line = next(x for x in result.check().stdout.splitlines() if x.startswith("RESULT "))
    data: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return data


def test_a_registration_for_the_exact_class_wins_and_receives_the_op(probe: dict[str, Any]) -> None:
    assert probe["init"] == 1
    assert probe["rms"] == ["registered", "registered RMSNorm"]
    assert probe["child"] == ["registered", "registered Child"]
    assert probe["same_engine"] is True


def test_exact_class_matching_both_ways(probe: dict[str, Any]) -> None:
    # a registration for RMSNorm does not apply to its subclass ...
    assert probe["sub_rms"] == ["oot", "tensor"]
    # ... nor one for a subclass (Child) to its base (WithMethods)
    assert probe["with_methods"] == ["method", "forward_vendor"]


def test_forward_key_counts_only_in_the_ops_own_chain_then_forward_oot(
    probe: dict[str, Any],
) -> None:
    # CustomOp.forward_vendor exists, but Base's chain below CustomOp does not define it
    assert probe["base"] == ["oot", "native"]
    assert probe["with_oot"] == ["oot", "forward_oot"]


def test_an_op_without_op_name_dispatches_by_its_class(probe: dict[str, Any]) -> None:
    assert probe["nameless"] == ["registered", "registered Nameless", "__main__.Nameless"]


def test_a_platform_answering_cuda_reuses_forward_cuda(probe: dict[str, Any]) -> None:
    assert probe["cuda"] == ["method", "forward_cuda"]
    assert probe["cuda_rms"] == ["oot", "tensor"]  # the "vendor" registration is not "cuda"'s


def test_empty_or_non_string_keys_are_errors(probe: dict[str, Any]) -> None:
    assert probe["empty_key"][0] == "ValueError"
    assert "VendorPlatform.get_dispatch_key_name() must be a non-empty str" in probe["empty_key"][1]
    assert probe["int_key"][0] == "TypeError"
    assert "got int 7" in probe["int_key"][1]
    assert probe["reg_empty"][0] == "ValueError"
    assert "platform_key" in probe["reg_empty"][1]
    assert probe["reg_none"][0] == "TypeError"
    assert probe["reg_class"][0] == "TypeError"
    assert "takes a CustomOp subclass" in probe["reg_class"][1]
    assert probe["reg_fn"][0] == "TypeError"


def test_rms_norm_is_a_torch_library_op_under_the_dispatch_key_that_compile_sees(
    probe: dict[str, Any],
) -> None:
    assert probe["native_matches_reference"] is True
    assert probe["library_key"] is True
    assert probe["compiled_matches"] is True
    assert "sglang_diffusion.rms_norm" in probe["graph_ops"]  # one opaque op in the graph


def test_the_engine_validates_keys_in_process() -> None:
    from sglang.runtime.op_dispatch import validate_dispatch_key

    assert validate_dispatch_key("npu", "key") == "npu"
    with pytest.raises(ValueError, match="key must be a non-empty str"):
        validate_dispatch_key("  ", "key")
    with pytest.raises(TypeError, match="got NoneType None"):
        validate_dispatch_key(None, "key")


def test_registry_keys_may_be_classes(tmp_path: Path) -> None:
    code = """
        from sglang.runtime.op_dispatch import register_op_impl, resolve_forward
        class Op:
            def forward_native(self): return "native"
        class Sub(Op):
            pass
        register_op_impl(Op, "k", lambda op: "registered")
        print(resolve_forward(Op(), "op", "k", out_of_tree=False, exact_class=True).forward(),
              resolve_forward(Sub(), "op", "k", out_of_tree=False, exact_class=True).forward(),
              resolve_forward(Op(), "op", "k", out_of_tree=False).forward())
    """
    assert run_python(code).check().stdout.split() == ["registered", "native", "native"]
