"""Linear layers on the CPU with oneDNN-packed weights.

On a CPU, ``functional.linear`` re-reads the weight in its plain row-major
layout on every call; oneDNN can instead reorder a weight once into the
blocked layout its matrix kernels read, which makes the projections of a
decode step (a few rows times a large weight) and the LM head about 1.3 to
2 times faster. :func:`pack_weight` makes that copy once, after loading
(as upstream SGLang packs weights for its CPU kernels), and
:func:`packed_linear` computes with it.

Only ``float32`` CPU weights of at least :data:`MIN_PACKED_ELEMENTS`
elements are packed: for tiny weights the call costs more than it saves.
The plain weight stays where it was (it is the layer's parameter, which
loading, tied embeddings and ``torch.compile`` use), so a packed layer
holds its weight twice. The results equal ``functional.linear``'s up to
float32 rounding (the sums are taken in another order).
"""

from __future__ import annotations

import torch
from torch.nn import functional

__all__ = ["MIN_PACKED_ELEMENTS", "linear", "pack_weight", "packed_linear"]

MIN_PACKED_ELEMENTS = 1 << 16
"""The smallest weight (in elements) worth packing."""

_DECODE_ROWS = 16
"""The row count oneDNN tunes a packed layout for (a decode batch)."""


def pack_weight(weight: torch.Tensor) -> torch.Tensor | None:
    """A oneDNN-packed copy of *weight* ``(out, in)``, or ``None`` where packing does not apply."""
    if (
        weight.device.type != "cpu"
        or weight.dtype != torch.float32
        or weight.dim() != 2
        or weight.numel() < MIN_PACKED_ELEMENTS
        or not torch.backends.mkldnn.is_available()  # type: ignore[no-untyped-call]
    ):
        return None
    with torch.no_grad():
        packed: torch.Tensor = torch.ops.mkldnn._reorder_linear_weight(
            weight.detach().contiguous(), _DECODE_ROWS
        )
    return packed


def packed_linear(
    x: torch.Tensor, packed: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """``x @ W.T (+ bias)`` for the packed weight *packed* of ``W``."""
    out: torch.Tensor = torch.ops.mkldnn._linear_pointwise(x, packed, bias, "none", [], "")
    return out


def linear(
    x: torch.Tensor,
    weight: torch.Tensor,
    packed: torch.Tensor | None,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """``x @ weight.T (+ bias)``, with *packed* (from :func:`pack_weight`) when there is one.

    The plain weight is used while ``torch.compile`` traces, and for
    activations that are not ``float32``.
    """
    if packed is None or x.dtype != torch.float32 or torch.compiler.is_compiling():
        return functional.linear(x, weight, bias)
    return packed_linear(x, packed, bias)
