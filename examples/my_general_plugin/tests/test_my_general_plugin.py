"""The quick-start general plugin's own tests: the hook wraps the constructor and says so."""

from __future__ import annotations

import pytest
from my_general_plugin import TARGET, my_hook, register

from sglang.srt.plugins.hook_registry import HookRegistry, HookType


class _Scheduler:
    def __init__(self, gpu_id: int) -> None:
        self.gpu_id = gpu_id


def test_the_hook_runs_the_constructor_then_prints(capsys: pytest.CaptureFixture[str]) -> None:
    scheduler = _Scheduler.__new__(_Scheduler)
    my_hook(_Scheduler.__init__, scheduler, gpu_id=3)
    assert scheduler.gpu_id == 3
    assert capsys.readouterr().out == "Scheduler initialized! gpu_id=3\n"


def test_register_adds_an_around_hook_on_the_scheduler() -> None:
    register()
    try:
        mine = [
            h for h in HookRegistry.hooks() if h.target == TARGET and h.hook.endswith("my_hook")
        ]
        assert [h.hook_type for h in mine] == [HookType.AROUND]
    finally:
        HookRegistry.reset()
