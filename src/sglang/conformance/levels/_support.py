"""Helpers the level modules share: the platform's factories and the initialised backend."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from sglang.conformance._target import Target

__all__ = ["factory_class", "initialised", "missing_members", "unbindable"]


def factory_class(platform: Any, factory: str) -> type:
    """Call *factory* on *platform* and return the class (failing when it is not one)."""
    try:
        found = getattr(platform, factory)()
    except NotImplementedError as exc:
        pytest.fail(f"{factory}() is not implemented, but the reference runtime needs it: {exc}")
    assert isinstance(found, type), f"{factory}() returned {found!r}, not a class"
    return found


def missing_members(cls: type, names: tuple[str, ...]) -> list[str]:
    """The names of *names* that *cls* lacks."""
    return [name for name in names if not hasattr(cls, name)]


def unbindable(cls: type, *args: object, **kwargs: object) -> str | None:
    """Why ``cls(*args, **kwargs)`` does not fit *cls*'s constructor, or ``None``."""
    try:
        inspect.signature(cls).bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    except ValueError:
        return None
    return None


def initialised(target: Target) -> Any:
    """Run the platform's ``init_backend()`` once in this process (as a worker does)."""
    from sglang.runtime.selection import initialize_current_platform

    initialize_current_platform(target.spec)
    return target.platform
