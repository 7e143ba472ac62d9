"""Tensor-parallel sharding math: the ranks' shards recombine to the full layer.

Each rank's layer loads the same full checkpoint tensor through its
``weight_loader``; summing (row-parallel) or concatenating (column-parallel)
the ranks' outputs must give the unsharded result. No process group is
needed: the collectives are emulated by that sum or concatenation.
"""

from __future__ import annotations

import pytest
import torch

from sglang.srt.distributed import TensorParallel, divide
from sglang.srt.layers.linear import (
    ColumnParallelLinear,
    MergedColumnParallelLinear,
    QKVParallelLinear,
    RowParallelLinear,
)
from sglang.srt.layers.vocab_parallel_embedding import ParallelLMHead, VocabParallelEmbedding

torch.manual_seed(0)


class LocalRank(TensorParallel):
    """A rank whose collectives return the local part; the test combines the ranks."""

    def all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    def all_gather(self, tensor: torch.Tensor, dim: int = -1) -> torch.Tensor:
        return tensor


def ranks(size: int) -> list[TensorParallel]:
    return [LocalRank(rank, size) for rank in range(size)]


@pytest.mark.parametrize("size", [1, 2, 4])
def test_column_parallel_concatenates_to_full(size: int) -> None:
    w, b, x = torch.randn(8, 6), torch.randn(8), torch.randn(3, 6)
    parts = []
    for tp in ranks(size):
        layer = ColumnParallelLinear(6, 8, bias=True, tp=tp)
        layer.weight_loader(layer.weight, w)
        assert layer.bias is not None
        layer.weight_loader(layer.bias, b)
        parts.append(layer(x))
    torch.testing.assert_close(torch.cat(parts, -1), x @ w.T + b)


@pytest.mark.parametrize("size", [1, 2])
def test_row_parallel_sums_to_full_with_bias_once(size: int) -> None:
    w, b, x = torch.randn(5, 8), torch.randn(5), torch.randn(3, 8)
    total = torch.zeros(3, 5)
    for tp in ranks(size):
        layer = RowParallelLinear(8, 5, bias=True, tp=tp)
        layer.weight_loader(layer.weight, w)
        assert layer.bias is not None
        layer.weight_loader(layer.bias, b)
        local = divide(8, size)
        total += layer(x[:, tp.rank * local : (tp.rank + 1) * local]) - b
    torch.testing.assert_close(total + b, x @ w.T + b)


@pytest.mark.parametrize("size", [1, 2])
def test_merged_gate_up_places_each_projection(size: int) -> None:
    gate, up, x = torch.randn(4, 6), torch.randn(4, 6), torch.randn(2, 6)
    gates, ups = [], []
    for tp in ranks(size):
        layer = MergedColumnParallelLinear(6, [4, 4], tp=tp)
        layer.weight_loader(layer.weight, gate, 0)
        layer.weight_loader(layer.weight, up, 1)
        g, u = layer(x).chunk(2, dim=-1)
        gates.append(g)
        ups.append(u)
    torch.testing.assert_close(torch.cat(gates, -1), x @ gate.T)
    torch.testing.assert_close(torch.cat(ups, -1), x @ up.T)


@pytest.mark.parametrize(("size", "kv_heads"), [(1, 2), (2, 2), (4, 2)])
def test_qkv_splits_heads_and_replicates_kv(size: int, kv_heads: int) -> None:
    heads, d = 4, 3
    wq, wk, wv = (
        torch.randn(heads * d, 5),
        torch.randn(kv_heads * d, 5),
        torch.randn(kv_heads * d, 5),
    )
    x = torch.randn(2, 5)
    qs, ks = [], []
    for tp in ranks(size):
        layer = QKVParallelLinear(5, d, heads, kv_heads, tp=tp)
        for shard, w in (("q", wq), ("k", wk), ("v", wv)):
            layer.weight_loader(layer.weight, w, shard)
        q, k, v = layer.split(layer(x))
        assert q.shape[-1] == heads // size * d
        qs.append(q)
        ks.append(torch.cat([k, v], -1))
    torch.testing.assert_close(torch.cat(qs, -1), x @ wq.T)
    kv_per_rank = max(1, kv_heads // size)
    replicas = max(1, size // kv_heads)
    assert ks[0].shape[-1] == 2 * kv_per_rank * d
    unique_k = torch.cat([kv[:, : kv_per_rank * d] for kv in ks[::replicas]], -1)
    unique_v = torch.cat([kv[:, kv_per_rank * d :] for kv in ks[::replicas]], -1)
    torch.testing.assert_close(unique_k, x @ wk.T)
    torch.testing.assert_close(unique_v, x @ wv.T)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_vocab_parallel_embedding_and_head(size: int) -> None:
    vocab, dim = 10, 4  # 10 rows do not divide by 3: the last range is padded
    table, ids, hidden = torch.randn(vocab, dim), torch.tensor([0, 3, 9, 5]), torch.randn(2, dim)
    embedded = torch.zeros(4, dim)
    logits = []
    for tp in ranks(size):
        emb = VocabParallelEmbedding(vocab, dim, tp=tp)
        emb.weight_loader(emb.weight, table)
        embedded += emb(ids)  # ids outside the rank's range embed to zeros
        head = ParallelLMHead(vocab, dim, tp=tp)
        head.weight_loader(head.weight, table)
        logits.append(hidden @ head.weight.T)
    torch.testing.assert_close(embedded, table[ids])
    torch.testing.assert_close(torch.cat(logits, -1)[:, :vocab], hidden @ table.T)


def test_indivisible_heads_are_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not divisible by the tensor-parallel size 3"):
        QKVParallelLinear(8, 2, 4, 2, tp=TensorParallel(0, 3))
