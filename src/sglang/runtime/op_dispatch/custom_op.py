"""``CustomOp``: a ``torch.nn.Module`` whose forward is chosen once, at construction."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from sglang.runtime.op_dispatch.registry import DispatchSource, Resolution, resolve_forward
from sglang.runtime.spec import SRT, RuntimeSpec

__all__ = ["CustomOp"]


class CustomOp(torch.nn.Module):
    """Base class of dispatched fused ops.

    Subclasses set :attr:`op_name` and implement ``forward_native``; they may
    add ``forward_<key>`` methods and ``forward_oot``. The platform comes
    from :meth:`dispatch_platform`: the selected platform of :attr:`runtime`
    (SRT's ``current_platform`` by default; diffusion ops set ``DIFFUSION``).

    Attributes:
        op_name: The name implementations are registered under.
        resolution: How this instance's forward was resolved.
    """

    op_name: ClassVar[str]
    resolution: Resolution

    def __init__(self) -> None:
        super().__init__()
        platform = self.dispatch_platform()
        self.resolution = resolve_forward(
            self,
            self.op_name,
            platform.get_dispatch_key_name(),
            out_of_tree=platform.is_out_of_tree(),
        )
        self._forward = self.resolution.forward

    runtime: ClassVar[RuntimeSpec] = SRT
    """The runtime whose selected platform picks the implementation (diffusion ops: DIFFUSION)."""

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
