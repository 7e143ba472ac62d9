"""``CustomOp``: diffusion's dispatched ops, on the op-dispatch engine SRT's fused ops use.

An op's ``forward`` resolves once, at construction (after the worker's
backend initialisation), from the diffusion platform's
``get_dispatch_key_name()``:

1. a function registered with :meth:`CustomOp.register_oot_forward` for
   the op's EXACT class and that key (never inherited by subclasses);
2. ``forward_<key>()``, when a class of the op's own chain below
   :class:`CustomOp` defines it (a platform answering ``"cuda"`` reuses
   ``forward_cuda()``);
3. ``forward_oot()``, whose base implementation calls ``forward_native()``.

The registered function receives the op instance before the normal arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from sglang.runtime.op_dispatch.custom_op import CustomOp as _EngineOp
from sglang.runtime.op_dispatch.registry import register_op_impl, validate_dispatch_key
from sglang.runtime.spec import DIFFUSION, RuntimeSpec

__all__ = ["CustomOp"]


class CustomOp(_EngineOp):
    """Base class of diffusion custom ops (``RMSNorm``, ``GELU``, ...).

    Subclasses implement ``forward_native``; they may add ``forward_<key>``
    methods and override ``forward_oot``. Registration is by class, as
    upstream's, so ``op_name`` is optional: it only names the op in reports
    (the class's qualname otherwise).
    """

    runtime: ClassVar[RuntimeSpec] = DIFFUSION
    registration_by_class: ClassVar[bool] = True
    always_forward_oot: ClassVar[bool] = True

    def forward_oot(self, *args: Any, **kwargs: Any) -> Any:
        """The out-of-tree fallback: ``forward_native()`` unless a subclass overrides it."""
        return self.forward_native(*args, **kwargs)

    @staticmethod
    def register_oot_forward(
        op_cls: type[CustomOp], fn: Callable[..., Any], platform_key: str
    ) -> None:
        """Register *fn* as the forward of *op_cls* (exactly) for dispatch key *platform_key*.

        Call it from the platform's ``init_backend()``; ops constructed after
        it resolve to ``fn(op, *args, **kwargs)``. Subclasses of *op_cls* are
        not affected (register them too if they should be).

        Raises:
            TypeError: *op_cls* is not a :class:`CustomOp` subclass, *fn* is
                not callable, or *platform_key* is not a string.
            ValueError: *platform_key* is empty.
        """
        validate_dispatch_key(platform_key, "CustomOp.register_oot_forward(platform_key=...)")
        if not (isinstance(op_cls, type) and issubclass(op_cls, CustomOp)):
            raise TypeError(
                f"CustomOp.register_oot_forward() takes a CustomOp subclass, got {op_cls!r}"
            )
        if not callable(fn):
            raise TypeError(f"CustomOp.register_oot_forward(fn=...) must be callable, got {fn!r}")
        register_op_impl(op_cls, platform_key, fn)


CustomOp.methods_below = CustomOp
