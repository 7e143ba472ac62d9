"""Tensor-parallel state: this process's rank and the group's size.

:class:`TensorParallel` is what the parallel layers read to shard their
weights. With ``size == 1`` the collectives are identities; with more ranks
they are ``torch.distributed`` collectives over the default process group
(initialised with ``current_platform.get_torch_distributed_backend_str()``).
Each scheduler rank joins it with :func:`init_distributed` and leaves it
with :func:`leave_distributed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

    from sglang.srt.server_args import ServerArgs

__all__ = ["TensorParallel", "divide", "init_distributed", "leave_distributed"]


def divide(numerator: int, denominator: int) -> int:
    """Return ``numerator // denominator``; raise ``ValueError`` unless it divides exactly."""
    if numerator % denominator:
        raise ValueError(f"{numerator} is not divisible by the tensor-parallel size {denominator}")
    return numerator // denominator


@dataclass(frozen=True)
class TensorParallel:
    """A rank within a tensor-parallel group.

    Ranks are numbered node by node: node *n* of ``nnodes`` holds ranks
    ``n * size // nnodes`` up to the next node's first.

    Attributes:
        rank: This process's rank in the group (``0 <= rank < size``).
        size: The number of ranks, over all nodes.
        nnodes: The number of nodes (machines) the ranks are spread over.
    """

    rank: int = 0
    size: int = 1
    nnodes: int = 1

    def __post_init__(self) -> None:
        if self.size < 1 or not 0 <= self.rank < self.size:
            raise ValueError(f"invalid tensor-parallel rank {self.rank} of size {self.size}")
        if self.nnodes < 1 or self.size % self.nnodes:
            raise ValueError(f"{self.size} ranks do not split evenly over {self.nnodes} nodes")

    @property
    def local_rank(self) -> int:
        """This rank's index on its own node (the device it uses)."""
        return self.rank % (self.size // self.nnodes)

    @property
    def node_rank(self) -> int:
        """The node this rank runs on."""
        return self.rank // (self.size // self.nnodes)

    def all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        """Sum *tensor* over the group (in place for ``size > 1``)."""
        if self.size == 1:
            return tensor
        import torch.distributed as dist

        dist.all_reduce(tensor)
        return tensor

    def all_gather(self, tensor: torch.Tensor, dim: int = -1) -> torch.Tensor:
        """Concatenate every rank's *tensor* along *dim*, in rank order."""
        if self.size == 1:
            return tensor
        import torch
        import torch.distributed as dist

        parts = [torch.empty_like(tensor) for _ in range(self.size)]
        dist.all_gather(parts, tensor.contiguous())
        return torch.cat(parts, dim=dim)


def init_distributed(server_args: ServerArgs, rank: int) -> None:
    """Join the tensor-parallel process group at ``--dist-init-addr`` (nothing for one rank)."""
    if server_args.tp_size == 1:
        return
    import datetime

    import torch.distributed as dist

    from sglang.srt.platforms import current_platform

    dist.init_process_group(
        backend=current_platform.get_torch_distributed_backend_str(),
        init_method=f"tcp://{server_args.dist_init_addr}",
        world_size=server_args.tp_size,
        rank=rank,
        timeout=datetime.timedelta(days=365),  # an idle server is not a failure
    )


def leave_distributed(server_args: ServerArgs) -> None:
    """Leave the process group together, after a barrier.

    Rank 0 hosts the rendezvous store: no rank may still need it when rank 0
    exits (one that did would abort).
    """
    if server_args.tp_size == 1:
        return
    import torch.distributed as dist

    dist.barrier()
    dist.destroy_process_group()
