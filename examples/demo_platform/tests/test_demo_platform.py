"""The demo platform's own tests: activation, the SRT class's factories and its quantization.

The full contract is checked by the conformance suite
(``SGLANG_PLATFORM=demo pytest --sglang-conformance``), which the
repository's self-test runs on this package.
"""

from __future__ import annotations

import pytest
from sglang_demo_platform import DEMO_DEVICE_ENV, activate, activate_diffusion

from sglang.runtime.resolver import resolve
from sglang.srt.platforms.interface import SRTPlatform


def test_callbacks_follow_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEMO_DEVICE_ENV, raising=False)
    assert activate() == "sglang_demo_platform.platform:DemoSRTPlatform"
    assert activate_diffusion() == "sglang_demo_platform.diffusion_platform.DemoDiffusionPlatform"
    monkeypatch.setenv(DEMO_DEVICE_ENV, "0")
    assert activate() is None
    assert activate_diffusion() is None


def _platform() -> SRTPlatform:
    cls = resolve("sglang_demo_platform.platform:DemoSRTPlatform")
    assert isinstance(cls, type)
    assert issubclass(cls, SRTPlatform)
    return cls()


def test_factories_name_the_demo_classes() -> None:
    platform = _platform()
    assert platform.get_mha_kv_pool_cls().__name__ == "DemoKVPool"
    assert platform.get_default_attention_backend() == "demo"
    assert platform.support_cuda_graph() is False


def test_quantization_uses_the_runtimes_configs() -> None:
    from sglang.srt.layers.quantization.registry import resolve_quantization_config

    platform = _platform()
    assert platform.get_quantization_config("w8a16_int8") is None
    config = resolve_quantization_config(platform, "w8a16_int8")
    assert config.get_name() == "w8a16_int8"
    with pytest.raises(ValueError, match="w8a16_int8"):  # the message lists the known names
        resolve_quantization_config(platform, "no_such_method")
