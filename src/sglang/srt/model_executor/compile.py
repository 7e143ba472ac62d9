"""``--enable-torch-compile``: compile the decoder layers with the platform's backend.

The runtime asks ``current_platform.get_compile_backend()`` for the backend
name and compiles each decoder layer's ``forward`` with
``torch.compile(backend=name, dynamic=True)``. The attention call stays
eager (``torch.compiler.disable``): it reads the batch's Python page tables
and writes the paged cache, which a graph would have to guard on every step.
So the projections, norms, rotary embedding and MLP of a layer form compiled
regions around the attention call; the batch size and sequence lengths are
dynamic, so decode steps reuse the same graphs.
"""

from __future__ import annotations

import torch

from sglang.srt.layers.radix_attention import RadixAttention

__all__ = ["compile_model"]


def compile_model(model: torch.nn.Module, backend: str) -> None:
    """Compile *model*'s decoder layers in place with ``torch.compile`` *backend*.

    A decoder layer is a child of the ``ModuleList`` holding the model's
    attention layers; each one's ``forward`` is replaced by its compiled
    version, and every :class:`RadixAttention` runs eagerly inside it.
    """
    for module in model.modules():
        if isinstance(module, RadixAttention):
            module.forward = torch.compiler.disable(module.forward)  # type: ignore[method-assign,no-untyped-call]
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList):
            for layer in module:
                layer.forward = torch.compile(layer.forward, backend=backend, dynamic=True)
