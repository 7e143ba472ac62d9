"""The sequence-parallel group, its communicator and the collectives the transformer uses."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Protocol

import torch
import torch.distributed as dist

__all__ = [
    "AllToAllCommunicator",
    "SequenceParallelGroup",
    "TorchAllToAll",
    "all_gather_seq",
    "all_to_all_4D",
    "get_sp_group",
    "init_distributed",
]


class AllToAllCommunicator(Protocol):
    """What a platform's communicator class builds: ``cls(world_size, rank)``."""

    def all_to_all_4D(self, x: torch.Tensor, scatter_dim: int, gather_dim: int) -> torch.Tensor:
        """Split *x* along *scatter_dim* across the ranks and gather along *gather_dim*."""
        ...


class TorchAllToAll:
    """The default communicator: ``torch.distributed`` (``all_gather`` emulation on gloo).

    Args:
        world_size: Ranks in the group.
        rank: This rank.
    """

    def __init__(self, world_size: int, rank: int) -> None:
        self.world_size = world_size
        self.rank = rank

    def all_to_all_4D(self, x: torch.Tensor, scatter_dim: int, gather_dim: int) -> torch.Tensor:
        """Ulysses exchange: rank *r* gets chunk *r* of *scatter_dim* from every rank."""
        size = self.world_size
        if size == 1:
            return x
        pieces = [piece.contiguous() for piece in x.chunk(size, dim=scatter_dim)]
        if dist.get_backend() == "gloo":  # gloo has no all_to_all
            everything = [torch.empty_like(x) for _ in range(size)]
            dist.all_gather(everything, x.contiguous())
            received = [whole.chunk(size, dim=scatter_dim)[self.rank] for whole in everything]
        else:
            received = [torch.empty_like(pieces[0]) for _ in range(size)]
            dist.all_to_all(received, pieces)
        return torch.cat(received, dim=gather_dim)


@dataclass(frozen=True)
class SequenceParallelGroup:
    """This worker's place in the sequence-parallel group.

    Attributes:
        world_size: The sequence-parallel degree.
        rank: This worker's rank.
        communicator: The communicator ``all_to_all_4D`` runs through.
        communicator_source: Which platform method supplied its class.
    """

    world_size: int
    rank: int
    communicator: AllToAllCommunicator
    communicator_source: str


_group: list[SequenceParallelGroup] = []


def _communicator(world_size: int, rank: int) -> tuple[AllToAllCommunicator, str]:
    from sglang.multimodal_gen.runtime.platforms import current_platform

    cls = current_platform.get_all_to_all_communicator_cls()
    source = "get_all_to_all_communicator_cls"
    if cls is None:
        cls, source = current_platform.get_device_communicator_cls(), "get_device_communicator_cls"
    if cls is None:
        return TorchAllToAll(world_size, rank), "default"
    communicator: AllToAllCommunicator = cls(world_size, rank)  # type: ignore[call-arg, assignment]
    return communicator, source


def init_distributed(
    world_size: int, rank: int, init_addr: str, device: torch.device
) -> SequenceParallelGroup:
    """Join the sequence-parallel process group (even alone) and build its communicator."""
    from sglang.multimodal_gen.runtime.platforms import current_platform

    if not dist.is_initialized():
        backend = current_platform.get_torch_distributed_backend_str()
        options: dict[str, object] = {}
        if current_platform.supports_distributed_device_id() and device.type != "cpu":
            options["device_id"] = device
        dist.init_process_group(
            backend=backend,
            init_method=f"tcp://{init_addr}",
            world_size=world_size,
            rank=rank,
            timeout=datetime.timedelta(days=365),  # an idle server is not a failure
            **options,  # type: ignore[arg-type]
        )
    communicator, source = _communicator(world_size, rank)
    group = SequenceParallelGroup(world_size, rank, communicator, source)
    _group[:] = [group]
    return group


def get_sp_group() -> SequenceParallelGroup:
    """Return this worker's group (one rank when :func:`init_distributed` never ran)."""
    if not _group:
        return SequenceParallelGroup(1, 0, TorchAllToAll(1, 0), "default")
    return _group[0]


def all_to_all_4D(x: torch.Tensor, scatter_dim: int, gather_dim: int) -> torch.Tensor:
    """Ulysses all-to-all of a 4-D tensor through the group's communicator."""
    group = get_sp_group()
    if group.world_size == 1:
        return x
    return group.communicator.all_to_all_4D(x, scatter_dim, gather_dim)


def all_gather_seq(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    """Concatenate every rank's shard of *x* along *dim*, in rank order."""
    group = get_sp_group()
    if group.world_size == 1:
        return x
    shards = [torch.empty_like(x) for _ in range(group.world_size)]
    dist.all_gather(shards, x.contiguous())
    return torch.cat(shards, dim=dim)
