"""A vendor's KV pool, allocator, attention backend and graph runner, typed by the sdk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sglang.sdk import (
    AttentionBackend,
    AttentionLayerLike,
    ForwardBatchLike,
    GraphRunner,
    MHAKVPool,
    ModelRunnerLike,
    PagedAllocator,
    SRTPlatformLike,
)
from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform

if TYPE_CHECKING:
    import torch


class MyKVPool:
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
        self._shape = (num_pages, page_size)
        self._buffers: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    @property
    def num_pages(self) -> int:
        return self._shape[0]

    @property
    def page_size(self) -> int:
        return self._shape[1]

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self._buffers[layer_id]

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        self._buffers[layer_id][0][loc] = k
        self._buffers[layer_id][1][loc] = v


class MyAllocator:
    def __init__(self, *, num_pages: int, page_size: int) -> None:
        self._free = list(range(num_pages))
        self._sizes = (num_pages, page_size)

    @property
    def num_pages(self) -> int:
        return self._sizes[0]

    @property
    def page_size(self) -> int:
        return self._sizes[1]

    def alloc(self, num_pages: int) -> list[int] | None:
        if num_pages > len(self._free):
            return None
        taken, self._free = self._free[:num_pages], self._free[num_pages:]
        return taken

    def free(self, pages: Sequence[int]) -> None:
        self._free.extend(pages)

    def available_pages(self) -> int:
        return len(self._free)


class MyAttention:
    def __init__(self, kv_pool: MHAKVPool) -> None:
        self.kv_pool = kv_pool

    def init_forward_metadata(self, batch: ForwardBatchLike) -> None:
        pass

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: AttentionLayerLike,
        batch: ForwardBatchLike,
    ) -> torch.Tensor:
        return q


class MyGraphRunner:
    def __init__(self, model_runner: ModelRunnerLike) -> None:
        self.model_runner = model_runner

    def can_run(self, batch: ForwardBatchLike) -> bool:
        return False

    def replay(self, batch: ForwardBatchLike) -> torch.Tensor:
        return self.model_runner.forward_eager(batch)


class MySRTPlatform(SRTPlatform):
    _enum = PlatformEnum.OOT
    device_name = "my_device"
    device_type = "cpu"

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        return MyKVPool

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        return MyAllocator

    def get_graph_runner_cls(self) -> type[GraphRunner]:
        return MyGraphRunner


backend_cls: type[AttentionBackend] = MyAttention
platform: SRTPlatformLike = MySRTPlatform()
allocator = platform.get_paged_allocator_cls()(num_pages=4, page_size=16)
pages: list[int] | None = allocator.alloc(2)
