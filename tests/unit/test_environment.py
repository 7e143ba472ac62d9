"""Reading the engine's environment: boolean flags, the allowlist warning, platform reprs."""

from __future__ import annotations

import logging

import pytest

from sglang.runtime import allowlist
from sglang.runtime.discovery import EntryPointIndex, EntryPointRecord
from sglang.runtime.environment import EnvironmentValueError, read_flag
from sglang.sdk.device import PlatformEnum
from sglang.sdk.diffusion import Platform
from sglang.sdk.srt import SRTPlatform


@pytest.mark.parametrize("value", ["1", "true", "Yes", " ON "])
def test_true_spellings(value: str) -> None:
    assert read_flag("FLAG", value) is True


@pytest.mark.parametrize("value", [None, "", "0", "false", "No", " off "])
def test_false_spellings(value: str | None) -> None:
    assert read_flag("FLAG", value) is False


@pytest.mark.parametrize("value", ["maybe", "2", "enable", "tru"])
def test_anything_else_is_an_error_naming_the_spellings(value: str) -> None:
    with pytest.raises(EnvironmentValueError) as caught:
        read_flag("SGLANG_X", value)
    message = str(caught.value)
    assert message.startswith(f"SGLANG_X={value!r} is not a boolean")
    assert "1, true, yes, on" in message
    assert "0, false, no, off" in message
    assert isinstance(caught.value, ValueError)


def _index(*names: tuple[str, str]) -> EntryPointIndex:
    return EntryPointIndex(
        EntryPointRecord(group, name, f"{name}:register", f"{name}-dist", "1.0")
        for group, name in names
    )


def test_allowlist_warns_once_per_value(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(allowlist, "_warned", set())
    index = _index(("sglang.srt.plugins", "obs"), ("sglang.srt.platforms", "demo"))
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        for _ in range(3):
            assert allowlist.read_allowlist("SGLANG_PLUGINS", {"SGLANG_PLUGINS": ","}, index) == (
                frozenset()
            )
        assert allowlist.read_allowlist(
            "SGLANG_PLUGINS", {"SGLANG_PLUGINS": "x"}, index
        ) == frozenset({"x"})
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "SGLANG_PLUGINS=',' is set but names no plugin" in messages[0]
    assert (
        "sglang.srt.plugins: obs; sglang.multimodal_gen.plugins: (none installed)" in (messages[0])
    )
    assert "sglang.srt.platforms: demo" in messages[0]
    assert "SGLANG_PLUGINS='x' names no installed plugin (x)" in messages[1]


def test_allowlist_unset_or_naming_something_installed_is_quiet(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(allowlist, "_warned", set())
    index = _index(("sglang.multimodal_gen.plugins", "diffobs"))
    with caplog.at_level(logging.WARNING, logger="sglang.plugins"):
        assert allowlist.read_allowlist("SGLANG_PLUGINS", {}, index) is None
        assert allowlist.read_allowlist(
            "SGLANG_PLUGINS", {"SGLANG_PLUGINS": "diffobs,typo"}, index
        ) == frozenset({"diffobs", "typo"})
    assert caplog.records == []


def test_repr_of_a_platform_that_selection_did_not_make() -> None:
    class Mine(SRTPlatform):
        _enum = PlatformEnum.OOT
        device_name = "mine"

    class Diff(Platform):
        device_name = "d"

    assert repr(Mine()) == (
        f"<SRT platform {__name__}.{Mine.__qualname__}, device 'mine', "
        "not chosen by platform selection>"
    )
    assert repr(Diff()).startswith(f"<diffusion platform {__name__}.")
