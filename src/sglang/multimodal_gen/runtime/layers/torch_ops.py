"""The pipeline's ``torch.library`` custom op, registered under the platform's dispatch key.

``sglang_diffusion::rms_norm`` is defined once per process and implemented
for ``current_platform.get_torch_library_dispatch_key()`` (``CPU``,
``CUDA``, ``PrivateUse1``, ...) and for ``CPU`` (where references run, the
conformance suite's included), with a fake implementation so
``torch.compile`` traces it as one opaque op.
"""

from __future__ import annotations

import threading

import torch

__all__ = ["NAMESPACE", "ensure_registered", "rms_norm"]

NAMESPACE = "sglang_diffusion"
"""The ``torch.library`` namespace of the pipeline's ops."""

_lock = threading.Lock()
_libraries: list[torch.library.Library] = []
_keys: set[str] = set()


def _rms_norm_impl(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    dtype = x.dtype
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return (h * weight.float()).to(dtype)


def _rms_norm_fake(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return torch.empty_like(x)


def ensure_registered() -> str:
    """Define the ops (once) and implement them for the platform's dispatch key and ``CPU``.

    Returns:
        The platform's dispatch key.
    """
    from sglang.multimodal_gen.runtime.platforms import current_platform

    key = current_platform.get_torch_library_dispatch_key()
    with _lock:
        if not _libraries:
            definition = torch.library.Library(NAMESPACE, "DEF")  # type: ignore[no-untyped-call]
            definition.define("rms_norm(Tensor x, Tensor weight, float eps) -> Tensor")  # type: ignore[no-untyped-call]
            _libraries.append(definition)
            torch.library.register_fake(f"{NAMESPACE}::rms_norm")(_rms_norm_fake)
        for missing in sorted({key, "CPU"} - _keys):
            impl = torch.library.Library(NAMESPACE, "IMPL")  # type: ignore[no-untyped-call]
            impl.impl("rms_norm", _rms_norm_impl, missing)  # type: ignore[no-untyped-call]
            _libraries.append(impl)
            _keys.add(missing)
    return key


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Call ``torch.ops.sglang_diffusion.rms_norm`` (register it first)."""
    result: torch.Tensor = torch.ops.sglang_diffusion.rms_norm(x, weight, eps)
    return result
