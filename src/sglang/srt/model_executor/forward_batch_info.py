"""``ForwardBatch``: one model step over several sequences."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from sglang.sdk.srt_runtime import AttentionBackend

__all__ = ["ForwardBatch", "ForwardMode"]


class ForwardMode(enum.Enum):
    """Whether a step prefills (extends) sequences or decodes one token each."""

    EXTEND = "extend"
    DECODE = "decode"


@dataclass(frozen=True)
class ForwardBatch:
    """The tensors and paging data of one step; satisfies :class:`sglang.sdk.ForwardBatchLike`.

    Attributes:
        forward_mode: Extend or decode.
        input_ids: The new tokens of every sequence, concatenated.
        positions: Their positions within their sequences.
        seq_lens: Each sequence's length after this step.
        extend_lens: Each sequence's number of new tokens.
        page_tables: Each sequence's KV pages, in token order.
        out_cache_loc: The KV slots of the new tokens.
        attn_backend: The attention backend that computes every layer.
        logits_indices: Which new tokens (indices into ``input_ids``) get
            logits; ``None``: each sequence's last one. Prompt log-probabilities
            need more than the last.
    """

    forward_mode: ForwardMode
    input_ids: torch.Tensor
    positions: torch.Tensor
    seq_lens: Sequence[int]
    extend_lens: Sequence[int]
    page_tables: Sequence[Sequence[int]]
    out_cache_loc: torch.Tensor
    attn_backend: AttentionBackend
    logits_indices: torch.Tensor | None = None

    @property
    def is_decode(self) -> bool:
        """Whether every sequence adds exactly one token."""
        return self.forward_mode is ForwardMode.DECODE

    @property
    def extend_prefix_lens(self) -> list[int]:
        """Each sequence's tokens already in the cache before this step (a shared prefix too)."""
        return [total - new for total, new in zip(self.seq_lens, self.extend_lens, strict=True)]

    @property
    def batch_size(self) -> int:
        """The number of sequences."""
        return len(self.seq_lens)
