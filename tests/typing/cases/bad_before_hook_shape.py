"""A BEFORE hook returns None or (args, kwargs), nothing else."""

from __future__ import annotations

from sglang.sdk import BeforeHook


def args_only(x: float, factor: int) -> tuple[float, int]:
    return (x, factor)


def kwargs_list(x: float, factor: int) -> tuple[tuple[object, ...], list[object]]:
    return ((x,), [factor])


def wrong_params(x: str, factor: int) -> None:
    return None


before_args: BeforeHook[[float, int]] = args_only  # expect-error
before_kwargs: BeforeHook[[float, int]] = kwargs_list  # expect-error
before_params: BeforeHook[[float, int]] = wrong_params  # expect-error
