"""The quick-start platform plugin's own tests: it steps aside unless told; its class fits."""

from __future__ import annotations

import pytest
from my_platform_plugin import AVAILABLE_ENV, activate

from sglang.runtime.resolver import resolve
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform


def test_activate_steps_aside_without_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(AVAILABLE_ENV, raising=False)
    assert activate() is None


def test_activate_names_a_constructible_oot_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AVAILABLE_ENV, "1")
    qualname = activate()
    assert qualname == "my_platform_plugin.platform.MySRTPlatform"
    cls = resolve(qualname)
    assert isinstance(cls, type)
    assert issubclass(cls, SRTPlatform)
    platform = cls()
    assert platform.is_out_of_tree()
    assert cls._enum is PlatformEnum.OOT
