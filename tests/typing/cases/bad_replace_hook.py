"""A REPLACE hook must be a drop-in for its target."""

from __future__ import annotations

from sglang.sdk import ReplaceHook


def faster(x: float) -> float:
    return x


def returns_text(x: float, factor: int) -> str:
    return f"{x * factor}"


replace_arity: ReplaceHook[[float, int], float] = faster  # expect-error
replace_result: ReplaceHook[[float, int], float] = returns_text  # expect-error
