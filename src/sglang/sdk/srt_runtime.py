"""Protocols for the classes an SRT platform's subsystem factories return.

``SRTPlatform.get_mha_kv_pool_cls()`` returns a ``type[MHAKVPool]``,
``get_paged_allocator_cls()`` a ``type[PagedAllocator]`` and
``get_graph_runner_cls()`` a ``type[GraphRunner]`` and
``get_quantization_config(name)`` a :class:`QuantizationConfig` (or ``None``);
attention backends registered by name satisfy :class:`AttentionBackend`. mypy and pyright check
a vendor's classes against these protocols, constructor included::

    from sglang.sdk import MHAKVPool, PagedAllocator

    pool_cls: type[MHAKVPool] = MyKVPool          # every member present and typed
    allocator_cls: type[PagedAllocator] = MyAllocator

Tensors are ``torch.Tensor`` (imported for type checking only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import torch

__all__ = [
    "AttentionBackend",
    "AttentionLayerLike",
    "ForwardBatchLike",
    "GraphRunner",
    "LinearMethod",
    "MHAKVPool",
    "ModelRunnerLike",
    "PagedAllocator",
    "QuantizationConfig",
]


class MHAKVPool(Protocol):
    """A paged multi-head-attention KV cache: per-layer K and V buffers of pages.

    Slot ``page * page_size + offset`` holds one token's keys and values;
    the buffers of a layer have shape ``(num_pages * page_size, num_kv_heads, head_dim)``.
    """

    def __init__(
        self,
        *,
        num_pages: int,
        page_size: int,
        num_layers: int,
        num_kv_heads: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device,
    ) -> None: ...

    @property
    def num_pages(self) -> int:
        """The number of pages per layer."""
        ...

    @property
    def page_size(self) -> int:
        """The number of token slots per page."""
        ...

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Return layer *layer_id*'s ``(K, V)`` slot buffers."""
        ...

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        """Write *k* and *v* (``(tokens, heads, head_dim)``) to slots *loc* of a layer."""
        ...


class PagedAllocator(Protocol):
    """Hands out and takes back KV-cache pages by index.

    It must be deterministic: the same sequence of ``alloc`` and ``free``
    calls hands out the same pages, since every tensor-parallel rank runs
    the same scheduler (and the same prefix tree) and expects the same page
    tables. Pages come back in any order (the prefix cache frees them as it
    evicts), never twice.
    """

    def __init__(self, *, num_pages: int, page_size: int) -> None: ...

    @property
    def num_pages(self) -> int:
        """The number of pages managed."""
        ...

    @property
    def page_size(self) -> int:
        """The number of token slots per page."""
        ...

    def alloc(self, num_pages: int) -> list[int] | None:
        """Return *num_pages* free page indices, or ``None`` (nothing taken) if too few are free."""
        ...

    def free(self, pages: Sequence[int]) -> None:
        """Return *pages* to the free list."""
        ...

    def available_pages(self) -> int:
        """Return the number of free pages."""
        ...


class AttentionLayerLike(Protocol):
    """What an attention backend reads from the layer it computes."""

    @property
    def layer_id(self) -> int:
        """The layer's index in the KV pool."""
        ...

    @property
    def num_heads(self) -> int:
        """This rank's query heads."""
        ...

    @property
    def num_kv_heads(self) -> int:
        """This rank's key/value heads."""
        ...

    @property
    def head_dim(self) -> int:
        """The per-head width."""
        ...

    @property
    def scaling(self) -> float:
        """The softmax scale (``head_dim ** -0.5``)."""
        ...


class ForwardBatchLike(Protocol):
    """What an attention backend reads from a batch.

    Sequence *i* already has ``extend_prefix_lens[i] == seq_lens[i] -
    extend_lens[i]`` tokens in the cache and adds ``extend_lens[i]`` (one
    when decoding); its tokens live in the pages ``page_tables[i]``, and the
    new tokens' slots are ``out_cache_loc`` (all sequences, in order).

    With the prefix cache, the cached part is often computed by another
    request: the leading pages of several sequences' page tables are then
    the same pages (read by all, written by none), and a prefill starts at
    the first uncached position (``extend_prefix_lens[i] > 0``), a chunked
    prefill at the end of the previous chunk. New tokens are always written
    to pages of their own sequence.
    """

    @property
    def is_decode(self) -> bool:
        """Whether every sequence adds exactly one token."""
        ...

    @property
    def seq_lens(self) -> Sequence[int]:
        """The sequence lengths after this step."""
        ...

    @property
    def extend_lens(self) -> Sequence[int]:
        """The number of new tokens per sequence."""
        ...

    @property
    def extend_prefix_lens(self) -> Sequence[int]:
        """The tokens of each sequence already in the cache (``seq_lens - extend_lens``)."""
        ...

    @property
    def page_tables(self) -> Sequence[Sequence[int]]:
        """The pages of each sequence, in token order."""
        ...

    @property
    def out_cache_loc(self) -> torch.Tensor:
        """The KV slots of the new tokens."""
        ...


class AttentionBackend(Protocol):
    """Computes attention over the paged KV cache (registered by name)."""

    def __init__(self, kv_pool: MHAKVPool) -> None: ...

    def init_forward_metadata(self, batch: ForwardBatchLike) -> None:
        """Prepare per-batch metadata once, before the layers run."""
        ...

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: AttentionLayerLike,
        batch: ForwardBatchLike,
    ) -> torch.Tensor:
        """Store the new *k*/*v* in the cache and return the attention output.

        *q* is ``(tokens, num_heads * head_dim)``, *k*/*v* are
        ``(tokens, num_kv_heads * head_dim)``; the result has *q*'s shape.
        """
        ...


class ModelRunnerLike(Protocol):
    """What a graph runner may call on the model runner it accelerates."""

    def forward_eager(self, batch: ForwardBatchLike) -> torch.Tensor:
        """Run the model on *batch* without capture; return the logits."""
        ...


class GraphRunner(Protocol):
    """Runs decode batches through captured graphs where the device allows it."""

    def __init__(self, model_runner: ModelRunnerLike) -> None: ...

    def can_run(self, batch: ForwardBatchLike) -> bool:
        """Whether *batch* can be replayed from a captured graph."""
        ...

    def replay(self, batch: ForwardBatchLike) -> torch.Tensor:
        """Run *batch* (through a captured graph); return the logits."""
        ...


class LinearMethod(Protocol):
    """How one linear layer stores its weight and computes its output.

    The layer's full-precision ``weight`` (and ``bias``) are loaded first;
    then the runtime calls :meth:`process_weights_after_loading` once, which
    may replace them (for example by an int8 tensor and its scales).
    """

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        """Convert *layer*'s loaded weights to the form :meth:`apply` reads."""
        ...

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None
    ) -> torch.Tensor:
        """Return ``x @ W.T (+ bias)`` for *layer*'s (converted) weight ``W``."""
        ...


class QuantizationConfig(Protocol):
    """A quantization method's configuration (``SRTPlatform.get_quantization_config``)."""

    def get_name(self) -> str:
        """The method's ``--quantization`` name."""
        ...

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> LinearMethod:
        """Return the method for the linear *layer* named *prefix* (dotted, in the model)."""
        ...
