"""The op-implementation registry and the resolution order (no torch needed).

Implementations are keyed by ``(op name, dispatch key)``. A registered
implementation is called as ``impl(op, *args, **kwargs)``: it receives the
op module itself, so it can read the op's parameters (``op.weight``,
``op.variance_epsilon``, ...).
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, overload

__all__ = [
    "DispatchSource",
    "OpImpl",
    "Resolution",
    "clear_op_impls",
    "get_op_impl",
    "register_op_impl",
    "registered_op_impls",
    "resolve_forward",
]

OpImpl = Callable[..., Any]
"""A registered implementation: ``impl(op, *args, **kwargs) -> result``."""

_F = TypeVar("_F", bound=OpImpl)

_lock = threading.Lock()
_impls: dict[tuple[str, str], OpImpl] = {}


class DispatchSource(enum.Enum):
    """Where a resolved ``forward`` came from, in resolution order."""

    REGISTERED = "registered"
    """An implementation registered for ``(op name, key)``."""
    METHOD = "method"
    """The op's ``forward_<key>`` method."""
    OOT = "oot"
    """The op's ``forward_oot`` method (out-of-tree platforms only)."""
    NATIVE = "native"
    """The op's ``forward_native`` method."""


@dataclass(frozen=True)
class Resolution:
    """The outcome of :func:`resolve_forward`.

    Attributes:
        op_name: The op's registry name.
        key: The dispatch key it was resolved for.
        source: Which step of the order supplied the implementation.
        forward: The callable that ``forward`` runs (bound to the op).
    """

    op_name: str
    key: str
    source: DispatchSource
    forward: Callable[..., Any]


@overload
def register_op_impl(op_name: str, key: str) -> Callable[[_F], _F]: ...
@overload
def register_op_impl(op_name: str, key: str, impl: _F) -> _F: ...
def register_op_impl(op_name: str, key: str, impl: OpImpl | None = None) -> Any:
    """Register *impl* as op *op_name*'s implementation for dispatch key *key*.

    Usable directly or as a decorator::

        @register_op_impl("rms_norm", "demo")
        def demo_rms_norm(op, x, residual=None): ...

    A later registration for the same pair replaces the earlier one. Ops
    constructed before the registration keep what they resolved.

    Returns:
        *impl* (or, used as a decorator, a decorator returning it).
    """

    def register(fn: OpImpl) -> OpImpl:
        if not callable(fn):
            raise TypeError(f"op implementation for ({op_name!r}, {key!r}) must be callable")
        with _lock:
            _impls[(op_name, key)] = fn
        return fn

    return register if impl is None else register(impl)


def get_op_impl(op_name: str, key: str) -> OpImpl | None:
    """Return the implementation registered for ``(op_name, key)``, if any."""
    with _lock:
        return _impls.get((op_name, key))


def registered_op_impls() -> Mapping[tuple[str, str], OpImpl]:
    """Return a snapshot of every registration, keyed by ``(op name, key)``."""
    with _lock:
        return dict(_impls)


def clear_op_impls() -> None:
    """Forget every registration (for tests)."""
    with _lock:
        _impls.clear()


def resolve_forward(op: Any, op_name: str, key: str, *, out_of_tree: bool) -> Resolution:
    """Resolve *op*'s forward for dispatch key *key*.

    Order: registered implementation -> ``forward_<key>`` -> ``forward_oot``
    (only when *out_of_tree*) -> ``forward_native``.

    Args:
        op: The op instance (its class supplies the ``forward_*`` methods).
        op_name: The op's registry name.
        key: The platform's dispatch key name.
        out_of_tree: Whether the platform is an out-of-tree one.

    Returns:
        The resolution, whose ``forward`` is bound to *op*.
    """
    impl = get_op_impl(op_name, key)
    if impl is not None:
        bound_impl = impl

        def registered(*args: Any, **kwargs: Any) -> Any:
            return bound_impl(op, *args, **kwargs)

        return Resolution(op_name, key, DispatchSource.REGISTERED, registered)
    method = getattr(op, f"forward_{key}", None) if key != "native" else None
    if callable(method):
        return Resolution(op_name, key, DispatchSource.METHOD, method)
    oot = getattr(op, "forward_oot", None)
    if out_of_tree and callable(oot):
        return Resolution(op_name, key, DispatchSource.OOT, oot)
    return Resolution(op_name, key, DispatchSource.NATIVE, op.forward_native)
