"""A KV pool class without set_kv_buffer is not an MHAKVPool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.sdk import MHAKVPool

if TYPE_CHECKING:
    import torch


class ReadOnlyPool:
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
    ) -> None:
        self.num_pages = num_pages
        self.page_size = page_size

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError


pool_cls: type[MHAKVPool] = ReadOnlyPool  # expect-error
