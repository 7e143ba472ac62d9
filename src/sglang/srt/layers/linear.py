"""Tensor-parallel linear layers.

Each layer holds this rank's shard of the full weight and gives its
parameters a ``weight_loader(param, full_tensor, shard_id=None)`` that cuts
the rank's slice out of the checkpoint tensor:

* :class:`ColumnParallelLinear` splits the output dimension (rows of the
  weight); :class:`MergedColumnParallelLinear` stacks several column-parallel
  outputs (gate and up) and :class:`QKVParallelLinear` stacks q, k and v,
  replicating key/value heads when there are fewer of them than ranks;
* :class:`RowParallelLinear` splits the input dimension and sums the partial
  products over the group (``all_reduce``), adding the bias once.

Every layer computes through its ``quant_method`` (a
:class:`sglang.sdk.LinearMethod`): unquantized until the model loader hands
it the method of the quantization config (``--quantization``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from sglang.srt.distributed import TensorParallel, divide
from sglang.srt.layers.quantization.base import UnquantizedLinearMethod

if TYPE_CHECKING:
    from sglang.sdk.srt_runtime import LinearMethod

__all__ = [
    "ColumnParallelLinear",
    "MergedColumnParallelLinear",
    "QKVParallelLinear",
    "RowParallelLinear",
    "WeightLoader",
    "default_weight_loader",
    "set_weight_loader",
]

WeightLoader = Callable[..., None]
"""``loader(param, loaded_weight, shard_id=None)``: copy a checkpoint tensor into *param*."""


def default_weight_loader(param: torch.nn.Parameter, loaded: torch.Tensor) -> None:
    """Copy a checkpoint tensor of exactly *param*'s shape into it."""
    if param.shape != loaded.shape:
        raise ValueError(f"weight shape {tuple(loaded.shape)} != parameter {tuple(param.shape)}")
    param.data.copy_(loaded)


def set_weight_loader(param: torch.nn.Parameter, loader: WeightLoader) -> None:
    """Attach *loader* to *param* (the model loader calls ``param.weight_loader``)."""
    param.weight_loader = loader  # type: ignore[attr-defined]


def _copy_rows(param: torch.nn.Parameter, offset: int, part: torch.Tensor) -> None:
    """Copy *part* into rows ``[offset, offset + len(part))`` of *param*."""
    target = param.data.narrow(0, offset, part.shape[0])
    if target.shape != part.shape:
        raise ValueError(f"weight shard {tuple(part.shape)} != slot {tuple(target.shape)}")
    target.copy_(part)


class _Linear(torch.nn.Module):
    """A linear layer whose local weight is ``(out_local, in_local)``."""

    def __init__(self, in_local: int, out_local: int, bias: bool, tp: TensorParallel) -> None:
        super().__init__()
        self.tp = tp
        self.weight = torch.nn.Parameter(torch.empty(out_local, in_local), requires_grad=False)
        self.bias = (
            torch.nn.Parameter(torch.zeros(out_local), requires_grad=False) if bias else None
        )
        set_weight_loader(self.weight, self.weight_loader)
        if self.bias is not None:
            set_weight_loader(self.bias, self.weight_loader)
        self.quant_method: LinearMethod = UnquantizedLinearMethod()

    def weight_loader(
        self, param: torch.nn.Parameter, loaded: torch.Tensor, shard: Any = None
    ) -> None:
        """Copy this rank's slice of *loaded* into *param*."""
        raise NotImplementedError


class ColumnParallelLinear(_Linear):
    """``y = x A^T + b`` with A split by output rows across ranks.

    Args:
        input_size: The input width.
        output_size: The full output width (divisible by the TP size).
        bias: Whether the layer has a bias.
        gather_output: Whether to all-gather the output to full width.
        tp: This rank's tensor-parallel position.
    """

    def __init__(
        self,
        input_size: int,
        output_size: int,
        bias: bool = False,
        gather_output: bool = False,
        tp: TensorParallel | None = None,
    ) -> None:
        tp = tp or TensorParallel()
        super().__init__(input_size, divide(output_size, tp.size), bias, tp)
        self.gather_output = gather_output

    def _rows(self, loaded: torch.Tensor, start: int, size: int) -> torch.Tensor:
        """This rank's part of rows ``[start, start + size)`` of a full tensor."""
        local = divide(size, self.tp.size)
        return loaded.narrow(0, start + self.tp.rank * local, local)

    def weight_loader(
        self, param: torch.nn.Parameter, loaded: torch.Tensor, shard: Any = None
    ) -> None:
        """Copy this rank's rows of *loaded* into *param*."""
        default_weight_loader(param, self._rows(loaded, 0, loaded.shape[0]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Project *x* to this rank's output columns (gathered if requested)."""
        y = self.quant_method.apply(self, x, self.bias)
        return self.tp.all_gather(y) if self.gather_output else y


class MergedColumnParallelLinear(ColumnParallelLinear):
    """Several column-parallel projections stacked in one weight (gate and up).

    ``weight_loader(param, tensor, shard_id)`` places checkpoint projection
    *shard_id* (an index into *output_sizes*) at its offset.
    """

    def __init__(
        self,
        input_size: int,
        output_sizes: Sequence[int],
        bias: bool = False,
        tp: TensorParallel | None = None,
    ) -> None:
        super().__init__(input_size, sum(output_sizes), bias, tp=tp)
        self.output_sizes = tuple(output_sizes)

    def weight_loader(
        self, param: torch.nn.Parameter, loaded: torch.Tensor, shard: Any = None
    ) -> None:
        """Copy this rank's rows of projection *shard* into its slot of *param*."""
        if shard is None:
            super().weight_loader(param, loaded)
            return
        size = self.output_sizes[shard]
        offset = divide(sum(self.output_sizes[:shard]), self.tp.size)
        part = self._rows(loaded, 0, size)
        _copy_rows(param, offset, part)


class QKVParallelLinear(ColumnParallelLinear):
    """The fused q/k/v projection, split by heads across ranks.

    Query heads are divided among ranks; key/value heads too when there are
    at least as many as ranks, else each is replicated on
    ``tp_size // num_kv_heads`` ranks.
    """

    def __init__(
        self,
        hidden_size: int,
        head_dim: int,
        num_heads: int,
        num_kv_heads: int,
        bias: bool = False,
        tp: TensorParallel | None = None,
    ) -> None:
        tp = tp or TensorParallel()
        self.head_dim = head_dim
        self.num_heads = divide(num_heads, tp.size)
        if num_kv_heads >= tp.size:
            self.num_kv_heads = divide(num_kv_heads, tp.size)
            self.kv_replicas = 1
        else:
            self.num_kv_heads = 1
            self.kv_replicas = divide(tp.size, num_kv_heads)
        width = (self.num_heads + 2 * self.num_kv_heads) * head_dim
        super().__init__(hidden_size, width * tp.size, bias, tp=tp)
        self.q_size = self.num_heads * head_dim
        self.kv_size = self.num_kv_heads * head_dim

    def weight_loader(
        self, param: torch.nn.Parameter, loaded: torch.Tensor, shard: Any = None
    ) -> None:
        """Copy this rank's heads of checkpoint projection *shard* (``q``, ``k``, ``v``)."""
        if shard == "q":
            offset, size, index = 0, self.q_size, self.tp.rank
        else:
            offset = self.q_size + (self.kv_size if shard == "v" else 0)
            size, index = self.kv_size, self.tp.rank // self.kv_replicas
        part = loaded.narrow(0, index * size, size)
        _copy_rows(param, offset, part)

    def split(self, qkv: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Split a fused output into its q, k and v parts."""
        q, k, v = torch.split(qkv, [self.q_size, self.kv_size, self.kv_size], dim=-1)
        return q, k, v


class RowParallelLinear(_Linear):
    """``y = x A^T + b`` with A split by input columns; partial sums are all-reduced.

    Args:
        input_size: The full input width (divisible by the TP size).
        output_size: The output width.
        bias: Whether the layer has a bias (added once, after the reduction).
        reduce_results: Whether to all-reduce the partial products.
        tp: This rank's tensor-parallel position.
    """

    def __init__(
        self,
        input_size: int,
        output_size: int,
        bias: bool = False,
        reduce_results: bool = True,
        tp: TensorParallel | None = None,
    ) -> None:
        tp = tp or TensorParallel()
        super().__init__(divide(input_size, tp.size), output_size, bias, tp)
        self.reduce_results = reduce_results

    def weight_loader(
        self, param: torch.nn.Parameter, loaded: torch.Tensor, shard: Any = None
    ) -> None:
        """Copy this rank's input columns of *loaded* (the whole bias) into *param*."""
        if loaded.dim() == 1:
            default_weight_loader(param, loaded)
            return
        local = param.shape[1]
        default_weight_loader(param, loaded.narrow(1, self.tp.rank * local, local))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Project this rank's input slice and sum over the group."""
        y = self.quant_method.apply(self, x, None)
        if self.reduce_results:
            y = self.tp.all_reduce(y)
        return y if self.bias is None else y + self.bias
