"""``CustomOp``: a ``torch.nn.Module`` whose forward is chosen once, at construction."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from sglang.runtime.op_dispatch.registry import (
    DispatchSource,
    Resolution,
    resolve_forward,
    validate_dispatch_key,
)
from sglang.runtime.spec import SRT, RuntimeSpec

__all__ = ["CustomOp"]


class CustomOp(torch.nn.Module):
    """Base class of dispatched fused ops.

    Subclasses set :attr:`op_name` and implement ``forward_native``; they may
    add ``forward_<key>`` methods and ``forward_oot``. The platform comes
    from :meth:`dispatch_platform`: the selected platform of :attr:`runtime`
    (SRT's ``current_platform`` by default; diffusion ops set ``DIFFUSION``).

    The dispatch policy is data, set by each runtime's base class:
    :attr:`registration_by_class`, :attr:`always_forward_oot` and
    :attr:`methods_below` (see :func:`~sglang.runtime.op_dispatch.resolve_forward`).

    Attributes:
        op_name: The name implementations are registered under. Required
            where registration is by name (SRT); where it is by class
            (diffusion, as upstream) it is optional and only names the op in
            reports (:meth:`dispatch_name`).
        resolution: How this instance's forward was resolved.
    """

    op_name: ClassVar[str]
    resolution: Resolution

    registration_by_class: ClassVar[bool] = False
    """Registrations are looked up by the op's exact class (diffusion), not its name."""
    always_forward_oot: ClassVar[bool] = False
    """``forward_oot`` is a step for every platform (diffusion: its base calls native)."""
    methods_below: ClassVar[type | None] = None
    """Only ``forward_<key>`` methods defined in the op's chain below this class count."""

    def __init__(self) -> None:
        super().__init__()
        platform = self.dispatch_platform()
        owner = type(platform)
        key = validate_dispatch_key(
            platform.get_dispatch_key_name(),
            f"{owner.__module__}.{owner.__qualname__}.get_dispatch_key_name()",
        )
        self.resolution = resolve_forward(
            self,
            type(self).dispatch_name(),
            key,
            out_of_tree=self.always_forward_oot or platform.is_out_of_tree(),
            exact_class=self.registration_by_class,
            methods_below=self.methods_below,
        )
        self._forward = self.resolution.forward

    runtime: ClassVar[RuntimeSpec] = SRT
    """The runtime whose selected platform picks the implementation (diffusion ops: DIFFUSION)."""

    @classmethod
    def dispatch_name(cls) -> str:
        """The op's name: :attr:`op_name`, else (registration by class) the class's qualname.

        Raises:
            TypeError: The op registers by name and sets no :attr:`op_name`.
        """
        name: object = getattr(cls, "op_name", None)  # the class's, not nn.Module.__getattr__
        if isinstance(name, str) and name:
            return name
        if cls.registration_by_class:
            return f"{cls.__module__}.{cls.__qualname__}"
        raise TypeError(
            f"{cls.__module__}.{cls.__qualname__} sets no op_name: an op dispatched by name "
            "needs the name its implementations are registered under"
        )

    @classmethod
    def dispatch_platform(cls) -> Any:
        """Return the selected platform of :attr:`runtime` (its dispatch key picks the forward)."""
        from sglang.runtime.selection import resolve_platform

        return resolve_platform(cls.runtime)

    @property
    def dispatch_source(self) -> DispatchSource:
        """Which step of the dispatch order supplied this op's forward."""
        return self.resolution.source

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run the implementation resolved at construction."""
        return self._forward(*args, **kwargs)

    def forward_native(self, *args: Any, **kwargs: Any) -> Any:
        """The plain torch implementation every op must provide."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward_native")
