"""One op-dispatch engine for the fused ops of both runtimes.

A fused op (RMSNorm, SiLU-and-mul, rotary embedding, a diffusion custom op)
subclasses :class:`CustomOp`. Its ``forward`` is resolved ONCE, when the op
is constructed, from the platform's ``get_dispatch_key_name()``:

1. an implementation registered for ``(op name, key)`` with
   :func:`register_op_impl` (how a vendor plugs in a kernel without
   subclassing; diffusion ops register by exact class);
2. the op's ``forward_<key>`` method (``forward_cuda``, ``forward_cpu``, ...);
3. ``forward_oot``, when the platform is out of tree and the op defines one;
4. ``forward_native`` (plain torch).

The registry is importable without torch, so a platform module can register
its kernels at import time; :class:`CustomOp` (a ``torch.nn.Module``) is
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sglang.runtime.op_dispatch.registry import (
    DispatchSource,
    OpImpl,
    Resolution,
    clear_op_impls,
    get_op_impl,
    register_op_impl,
    registered_op_impls,
    resolve_forward,
    validate_dispatch_key,
)

if TYPE_CHECKING:
    from sglang.runtime.op_dispatch.custom_op import CustomOp

__all__ = [
    "CustomOp",
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


def __getattr__(name: str) -> Any:
    if name == "CustomOp":
        from sglang.runtime.op_dispatch.custom_op import CustomOp

        return CustomOp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
