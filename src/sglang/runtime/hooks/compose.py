"""What a target's hooks compose into: which fit, which REPLACE wins, what gets installed.

Pure decisions over a target's active entries, kept apart from the
transaction (:mod:`~sglang.runtime.hooks.apply`), which marks, logs and
patches according to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sglang.runtime.hooks.chain import ChainSpec, LabeledHook, make_installed
from sglang.runtime.hooks.state import Entry
from sglang.runtime.hooks.targets import ResolvedTarget, TargetKind
from sglang.sdk.hooks import HookType

__all__ = ["chain_spec", "installed_object", "unfit_reason"]


def unfit_reason(entry: Entry, target: ResolvedTarget) -> str | None:
    """Why *entry* cannot hook *target* (a class takes only a class REPLACE), or ``None``."""
    if target.kind is not TargetKind.CLASS:
        return None
    if entry.hook_type is not HookType.REPLACE:
        return (
            f"{target.location.qualname} is a class; a class target accepts only "
            "REPLACE hooks (hook a method such as '__init__' instead)"
        )
    if not isinstance(entry.hook, type):
        return (
            f"{target.location.qualname} is a class; REPLACE it with a class "
            "(a subclass keeps isinstance()/issubclass() working), not with "
            f"{type(entry.hook).__name__} {entry.hook_name}"
        )
    return None


def chain_spec(
    valid: Sequence[Entry], target: ResolvedTarget
) -> tuple[ChainSpec, Entry | None, list[Entry]]:
    """Compose *valid* entries: the chain, the winning REPLACE, the superseded REPLACEs."""
    replaces = [entry for entry in valid if entry.hook_type is HookType.REPLACE]
    winner = replaces[-1] if replaces else None
    spec = ChainSpec(
        original=target.original,
        befores=tuple(
            LabeledHook(e.hook, e.label) for e in valid if e.hook_type is HookType.BEFORE
        ),
        arounds=tuple(e.hook for e in valid if e.hook_type is HookType.AROUND),
        replace=winner.hook if winner is not None else None,
        afters=tuple(e.hook for e in valid if e.hook_type is HookType.AFTER),
        is_async=target.is_async,
    )
    return spec, winner, replaces[:-1]


def installed_object(target: ResolvedTarget, spec: ChainSpec) -> object:
    """The object bound on the owner: a function, a descriptor or a class."""
    kind = target.kind
    if kind is TargetKind.CLASS:
        assert spec.replace is not None
        return spec.replace
    if kind is TargetKind.CLASSMETHOD:
        return classmethod(make_installed(spec))
    chain: Callable[..., Any] = make_installed(spec)
    if kind is TargetKind.STATICMETHOD:
        return staticmethod(chain)
    return chain
