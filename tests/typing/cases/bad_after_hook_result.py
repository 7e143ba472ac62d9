"""An AFTER hook receives the target's result first and returns that type or None."""

from __future__ import annotations

from sglang.sdk import AfterHook


def stringify(result: float, x: float, factor: int) -> str:
    return str(result)


def expects_str_result(result: str, x: float, factor: int) -> float | None:
    return None


def forgets_result(x: float, factor: int) -> float | None:
    return None


after_return: AfterHook[float, [float, int]] = stringify  # expect-error
after_param: AfterHook[float, [float, int]] = expects_str_result  # expect-error
after_missing: AfterHook[float, [float, int]] = forgets_result  # expect-error
