"""The tensor work of a decode step over :mod:`.cache`'s padded copies.

Building a block's copies (:func:`rebuilt`), gathering rows and shared
prefixes from the pool's pages (:func:`fill`, :func:`gather`), and three
ways to attend one block of rows, all with the query heads of one
key/value head grouped as one query block (so keys and values are read once
per step, not once per query head):

* :func:`padded`: one SDPA call over every row, padding masked out;
* :func:`row_by_row`: one SDPA call per row, each over its own length (rows
  of very uneven lengths);
* :func:`with_prefix`: rows that share a prefix attend over its keys and
  values once, all their queries together, and over their own suffixes
  padded; the two partial results are merged through their log-sum-exps,
  which gives the softmax over the whole sequence.
"""

from __future__ import annotations

import torch
from torch.nn import functional

__all__ = ["Pair", "fill", "gather", "padded", "rebuilt", "row_by_row", "with_prefix"]

Pair = tuple[torch.Tensor, torch.Tensor]
"""Keys and values."""


def rebuilt(
    old: Pair | None,
    shape: tuple[int, int, int, int],
    moved: Pair | None,
    dtype: torch.dtype,
    device: torch.device,
) -> Pair:
    """New ``(rows, kv_heads, capacity, dim)`` K/V copies: *old*'s rows ``moved[0]``, moved.

    They land in rows ``moved[1]``. Not zeroed: a row is written whole when
    it is filled or moved, so only the rows in use are ever touched (on a
    CPU, first writes to fresh memory are the dear part).
    """
    fresh = (
        torch.empty(shape, dtype=dtype, device=device),
        torch.empty(shape, dtype=dtype, device=device),
    )
    if old is not None and moved is not None and moved[0].numel():
        width = old[0].shape[2]
        for source, target in zip(old, fresh, strict=True):
            target[moved[1], :, :width] = source[moved[0]]
            target[moved[1], :, width:] = 0
    return fresh


def fill(copy: torch.Tensor, pool: torch.Tensor, rows: torch.Tensor, slots: torch.Tensor) -> None:
    """Write pool *slots* ``(len(rows), width)`` into *rows* of *copy*, zeros after them.

    A row at a time: a small temporary that the allocator hands out again.
    """
    width = slots.shape[1]
    for row, row_slots in zip(rows.tolist(), slots, strict=True):
        copy[row, :, :width] = pool.index_select(0, row_slots).transpose(0, 1)
    copy[rows, :, width:] = 0


def gather(kv: Pair, slots: torch.Tensor) -> Pair:
    """The ``(kv_heads, len(slots), dim)`` keys and values of pool *slots*."""
    k, v = (pool.index_select(0, slots).transpose(0, 1).contiguous() for pool in kv)
    return k, v


def padded(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """``(rows, heads, dim)`` queries over ``(rows, kv_heads, length, dim)`` keys and values."""
    rows, heads, dim = queries.shape
    kv_heads = keys.shape[1]
    return functional.scaled_dot_product_attention(
        queries.view(rows, kv_heads, heads // kv_heads, dim),
        keys.to(queries.dtype),
        values.to(queries.dtype),
        attn_mask=mask.to(queries.dtype),
        scale=scale,
    ).reshape(rows, heads, dim)


def row_by_row(
    q: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    ragged: list[tuple[int, int]],
    scale: float,
) -> torch.Tensor:
    """Query *i* over row ``ragged[i][0]``'s first ``ragged[i][1]`` keys and values."""
    heads, dim = q.shape[1], q.shape[2]
    kv_heads = keys.shape[1]
    out = torch.empty_like(q)
    for i, (row, length) in enumerate(ragged):
        out[i] = functional.scaled_dot_product_attention(
            q[i].view(kv_heads, heads // kv_heads, dim),
            keys[row, :, :length].to(q.dtype),
            values[row, :, :length].to(q.dtype),
            scale=scale,
        ).reshape(heads, dim)
    return out


def _attend(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None,
    scale: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention of ``(..., queries, dim)`` over ``(..., keys, dim)``, and its log-sum-exp."""
    scores = torch.matmul(q * scale, k.transpose(-1, -2))
    if mask is not None:
        scores = scores + mask
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    return torch.matmul(torch.exp(scores - lse), v), lse


def with_prefix(
    q: torch.Tensor,
    prefix: tuple[torch.Tensor, torch.Tensor],
    suffix: tuple[torch.Tensor, torch.Tensor],
    mask: torch.Tensor,
    rows: torch.Tensor | None,
    scale: float,
) -> torch.Tensor:
    """Queries of sequences that share a prefix, over the prefix and each one's suffix.

    Args:
        q: ``(n, heads, dim)``: sequence *i*'s query is ``q[i]``.
        prefix: ``(kv_heads, prefix_len, dim)`` keys and values they share.
        suffix: ``(used, kv_heads, length, dim)`` keys and values after the prefix.
        mask: ``(used, 1, 1, length)`` padding mask of the suffixes.
        rows: Sequence *i*'s suffix row (``None``: row *i*, and ``used == n``).
        scale: The softmax scale.
    """
    n, heads, dim = q.shape
    kv_heads = prefix[0].shape[0]
    group = heads // kv_heads
    dtype = q.dtype
    if rows is None:
        queries = q
    else:
        queries = q.new_zeros((suffix[0].shape[0], heads, dim))
        queries[rows] = q
    s_out, s_lse = _attend(
        queries.view(-1, kv_heads, group, dim),
        suffix[0].to(dtype),
        suffix[1].to(dtype),
        mask.to(dtype),
        scale,
    )
    if rows is not None:
        s_out, s_lse = s_out[rows], s_lse[rows]
    shared = q.view(n, kv_heads, group, dim).transpose(0, 1).reshape(kv_heads, n * group, dim)
    p_out, p_lse = _attend(shared, prefix[0].to(dtype), prefix[1].to(dtype), None, scale)
    p_out = p_out.view(kv_heads, n, group, dim).transpose(0, 1)
    p_lse = p_lse.view(kv_heads, n, group, 1).transpose(0, 1)
    top = torch.maximum(s_lse, p_lse)
    s_weight, p_weight = torch.exp(s_lse - top), torch.exp(p_lse - top)
    out = (s_out * s_weight + p_out * p_weight) / (s_weight + p_weight)
    return out.reshape(n, heads, dim)
