"""The op-implementation registry and the resolution order (no torch needed).

Implementations are keyed by ``(op, dispatch key)``, where the op is its
registry name (SRT's fused ops) or its exact class (diffusion's custom ops,
``exact_class=True``: a registration for a class never applies to its
subclasses, nor one for a subclass to its base). A registered
implementation is called as ``impl(op, *args, **kwargs)``: it receives the
op module itself, so it can read the op's parameters (``op.weight``,
``op.variance_epsilon``, ...).
"""

from __future__ import annotations

import enum
import functools
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
    "validate_dispatch_key",
]

OpImpl = Callable[..., Any]
"""A registered implementation: ``impl(op, *args, **kwargs) -> result``."""

_F = TypeVar("_F", bound=OpImpl)

OpKey = str | type
"""What a registration names: an op's registry name, or (diffusion) its exact class."""

_lock = threading.Lock()
_impls: dict[tuple[OpKey, str], OpImpl] = {}


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
def register_op_impl(op_name: OpKey, key: str) -> Callable[[_F], _F]: ...
@overload
def register_op_impl(op_name: OpKey, key: str, impl: _F) -> _F: ...
def register_op_impl(op_name: OpKey, key: str, impl: OpImpl | None = None) -> Any:
    """Register *impl* as op *op_name*'s implementation for dispatch key *key*.

    Usable directly or as a decorator::

        @register_op_impl("rms_norm", "demo")
        def demo_rms_norm(op, x, residual=None): ...

    A later registration for the same pair replaces the earlier one. Ops
    constructed before the registration keep what they resolved.

    Returns:
        *impl* (or, used as a decorator, a decorator returning it).

    Raises:
        TypeError: *key* is not a string, or *impl* is not callable.
        ValueError: *key* is empty.
    """
    validate_dispatch_key(key, "the dispatch key of an op registration")

    def register(fn: OpImpl) -> OpImpl:
        if not callable(fn):
            raise TypeError(f"op implementation for ({op_name!r}, {key!r}) must be callable")
        with _lock:
            _impls[(op_name, key)] = fn
        return fn

    return register if impl is None else register(impl)


def validate_dispatch_key(key: object, what: str) -> str:
    """Return *key* if it is a non-empty string, else raise naming *what* it is.

    Raises:
        TypeError: *key* is not a ``str``.
        ValueError: *key* is empty or only whitespace.
    """
    if not isinstance(key, str):
        raise TypeError(f"{what} must be a non-empty str, got {type(key).__name__} {key!r}")
    if not key.strip():
        raise ValueError(f"{what} must be a non-empty str, got {key!r}")
    return key


def get_op_impl(op_name: OpKey, key: str) -> OpImpl | None:
    """Return the implementation registered for ``(op_name, key)``, if any."""
    with _lock:
        return _impls.get((op_name, key))


def registered_op_impls() -> Mapping[tuple[OpKey, str], OpImpl]:
    """Return a snapshot of every registration, keyed by ``(op name, key)``."""
    with _lock:
        return dict(_impls)


def clear_op_impls() -> None:
    """Forget every registration (for tests)."""
    with _lock:
        _impls.clear()


def _defined_below(op: Any, name: str, base: type | None) -> bool:
    """Whether a class of *op*'s MRO before *base* defines *name* (any class when ``None``)."""
    for cls in type(op).__mro__:
        if cls is base:
            return False
        if name in vars(cls):
            return True
    return base is None and hasattr(op, name)


def resolve_forward(
    op: Any,
    op_name: str,
    key: str,
    *,
    out_of_tree: bool,
    exact_class: bool = False,
    methods_below: type | None = None,
) -> Resolution:
    """Resolve *op*'s forward for dispatch key *key*.

    Order: registered implementation -> ``forward_<key>`` -> ``forward_oot``
    (only when *out_of_tree*) -> ``forward_native``.

    Args:
        op: The op instance (its class supplies the ``forward_*`` methods).
        op_name: The op's registry name.
        key: The platform's dispatch key name.
        out_of_tree: Whether ``forward_oot`` is a step of the order.
        exact_class: Look registrations up by ``type(op)`` instead of *op_name*.
        methods_below: When given, a ``forward_<key>`` counts only if a class
            of the op's MRO before this base class defines it.

    Returns:
        The resolution, whose ``forward`` is bound to *op*.
    """
    impl = get_op_impl(type(op) if exact_class else op_name, key)
    if impl is not None:  # a C-level partial: the resolved call costs what a direct call does
        return Resolution(op_name, key, DispatchSource.REGISTERED, functools.partial(impl, op))
    name = f"forward_{key}"
    usable = key != "native" and _defined_below(op, name, methods_below)
    method = getattr(op, name, None) if usable else None
    if callable(method):
        return Resolution(op_name, key, DispatchSource.METHOD, method)
    oot = getattr(op, "forward_oot", None)
    if out_of_tree and callable(oot):
        return Resolution(op_name, key, DispatchSource.OOT, oot)
    return Resolution(op_name, key, DispatchSource.NATIVE, op.forward_native)
