"""``sglang.sdk.srt.SRTPlatform``: the seed's defaults for flags, factories, hooks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sglang.sdk import DeviceMixin, PlatformEnum, SRTPlatform


class VendorPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT


SRT_CALLS: dict[str, Callable[[SRTPlatform], object]] = {
    "support_cuda_graph": lambda p: p.support_cuda_graph(),
    "support_piecewise_cuda_graph": lambda p: p.support_piecewise_cuda_graph(),
    "supports_fp8": lambda p: p.supports_fp8(),
    "get_default_attention_backend": lambda p: p.get_default_attention_backend(),
    "get_graph_runner_cls": lambda p: p.get_graph_runner_cls(),
    "get_mha_kv_pool_cls": lambda p: p.get_mha_kv_pool_cls(),
    "get_mla_kv_pool_cls": lambda p: p.get_mla_kv_pool_cls(),
    "get_dsa_kv_pool_cls": lambda p: p.get_dsa_kv_pool_cls(),
    "get_paged_allocator_cls": lambda p: p.get_paged_allocator_cls(),
    "get_quantization_config": lambda p: p.get_quantization_config("fp8"),
    "get_piecewise_backend_cls": lambda p: p.get_piecewise_backend_cls(),
    "get_compile_backend": lambda p: p.get_compile_backend(),
    "get_dispatch_key_name": lambda p: p.get_dispatch_key_name(),
    "apply_server_args_defaults": lambda p: p.apply_server_args_defaults(object()),
    "init_backend": lambda p: p.init_backend(),
}

FLAGS = ["support_cuda_graph", "support_piecewise_cuda_graph", "supports_fp8"]
FACTORIES = [
    "get_default_attention_backend",
    "get_graph_runner_cls",
    "get_mha_kv_pool_cls",
    "get_mla_kv_pool_cls",
    "get_dsa_kv_pool_cls",
    "get_paged_allocator_cls",
    "get_quantization_config",
    "get_piecewise_backend_cls",
]


def test_srt_platform_extends_device_mixin() -> None:
    assert issubclass(SRTPlatform, DeviceMixin)
    assert SRTPlatform().is_out_of_tree() is False
    assert VendorPlatform().is_out_of_tree() is True


@pytest.mark.parametrize("flag", FLAGS)
def test_capability_flags_default_false(flag: str) -> None:
    assert SRT_CALLS[flag](VendorPlatform()) is False


@pytest.mark.parametrize("factory", FACTORIES)
def test_factories_raise_naming_class_and_method(factory: str) -> None:
    with pytest.raises(NotImplementedError) as caught:
        SRT_CALLS[factory](VendorPlatform())
    message = str(caught.value)
    assert "VendorPlatform" in message
    assert f"{factory}()" in message


@pytest.mark.parametrize("mode", [None, "default", "max-autotune"])
def test_compile_backend_defaults_to_inductor(mode: str | None) -> None:
    assert VendorPlatform().get_compile_backend(mode) == "inductor"


def test_dispatch_key_name_defaults_to_native() -> None:
    assert VendorPlatform().get_dispatch_key_name() == "native"


@pytest.mark.parametrize("hook", ["apply_server_args_defaults", "init_backend"])
def test_lifecycle_hooks_default_to_nothing(hook: str) -> None:
    assert SRT_CALLS[hook](VendorPlatform()) is None


def test_apply_server_args_defaults_leaves_args_untouched() -> None:
    class Args:
        attention_backend: str | None = None

    args = Args()
    VendorPlatform().apply_server_args_defaults(args)
    assert vars(args) == {}


def test_overrides_take_effect() -> None:
    class Fast(VendorPlatform):
        def support_cuda_graph(self) -> bool:
            return True

        def get_default_attention_backend(self) -> str:
            return "my_attention"

    platform = Fast()
    assert platform.support_cuda_graph() is True
    assert platform.get_default_attention_backend() == "my_attention"
    assert platform.supports_fp8() is False


def test_every_call_is_an_srt_operation() -> None:
    from sglang.sdk import SRT_OPERATIONS

    assert set(SRT_CALLS) == set(SRT_OPERATIONS)
