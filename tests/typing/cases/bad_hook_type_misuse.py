"""HookType is an enum: neither strings nor invented members are hook types."""

from __future__ import annotations

from sglang.sdk import HookType


def register(target: str, kind: HookType) -> None:
    print(target, kind)


register("pkg.mod.fn", "around")  # expect-error
register("pkg.mod.fn", HookType.WRAP)  # expect-error
kind: HookType = HookType.BEFORE.value  # expect-error
