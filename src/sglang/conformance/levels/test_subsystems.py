"""Subsystems [SUB]: each factory's class implements its sdk protocol and works."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sglang.conformance._clauses import clause
from sglang.conformance._target import Target
from sglang.conformance.levels._support import (
    factory_class,
    initialised,
    missing_members,
    unbindable,
)

__all__ = ["TestSubsystems"]

_POOL = {"num_pages": 6, "page_size": 4, "num_layers": 2, "num_kv_heads": 2, "head_dim": 8}


def _pool(platform: Any, dtype: Any) -> Any:
    cls = factory_class(platform, "get_mha_kv_pool_cls")
    return cls(**_POOL, dtype=dtype, device=platform.get_device(0))


class TestSubsystems:
    """The SRT subsystem factories of the selected platform."""

    @clause("SUB-01")
    def test_kv_pool_class(self, sglang_platform: Any) -> None:
        """A class whose constructor and members are those of ``MHAKVPool``."""
        import torch

        cls = factory_class(sglang_platform, "get_mha_kv_pool_cls")
        problem = unbindable(cls, **_POOL, dtype=torch.float32, device=torch.device("cpu"))
        assert problem is None, (
            f"{cls.__qualname__}(...) does not take MHAKVPool's arguments: {problem}"
        )
        missing = missing_members(cls, ("num_pages", "page_size", "get_kv_buffer", "set_kv_buffer"))
        assert not missing, f"{cls.__qualname__} lacks MHAKVPool members {missing}"

    @pytest.mark.parametrize("dtype_name", ["float32", "bfloat16"])
    @clause("SUB-02")
    def test_kv_pool_keeps_writes(self, sglang_platform: Any, dtype_name: str) -> None:
        """Every slot written holds what was written last; nothing else changes."""
        import torch

        dtype = getattr(torch, dtype_name)
        pool = _pool(sglang_platform, dtype)
        slots = _POOL["num_pages"] * _POOL["page_size"]
        assert (pool.num_pages, pool.page_size) == (_POOL["num_pages"], _POOL["page_size"])
        device = sglang_platform.get_device(0)
        generator = torch.Generator().manual_seed(0)
        expected = {}
        for layer in range(_POOL["num_layers"]):
            for round_ in range(3):
                loc = torch.randperm(slots, generator=generator)[: 3 + 2 * round_]
                shape = (len(loc), _POOL["num_kv_heads"], _POOL["head_dim"])
                k = torch.randn(shape, generator=generator).to(dtype)
                v = torch.randn(shape, generator=generator).to(dtype)
                pool.set_kv_buffer(layer, loc.to(device), k.to(device), v.to(device))
                for i, slot in enumerate(loc.tolist()):
                    expected[(layer, slot)] = (k[i], v[i])
        for layer in range(_POOL["num_layers"]):
            k_buffer, v_buffer = pool.get_kv_buffer(layer)
            assert tuple(k_buffer.shape) == (slots, _POOL["num_kv_heads"], _POOL["head_dim"])
            k_host, v_host = k_buffer.cpu(), v_buffer.cpu()
            for (written_layer, slot), (k, v) in expected.items():
                if written_layer != layer:
                    continue
                lost = f"the KV pool lost a write: layer {layer}, slot {slot}"
                assert torch.equal(k_host[slot], k), f"{lost} (keys)"
                assert torch.equal(v_host[slot], v), f"{lost} (values)"

    @clause("SUB-03")
    def test_allocator_class(self, sglang_platform: Any) -> None:
        """A class whose constructor and members are those of ``PagedAllocator``."""
        cls = factory_class(sglang_platform, "get_paged_allocator_cls")
        problem = unbindable(cls, num_pages=4, page_size=2)
        assert problem is None, (
            f"{cls.__qualname__}(...) does not take PagedAllocator's arguments: {problem}"
        )
        missing = missing_members(
            cls, ("num_pages", "page_size", "alloc", "free", "available_pages")
        )
        assert not missing, f"{cls.__qualname__} lacks PagedAllocator members {missing}"

    @pytest.mark.parametrize("seed", [0, 1, 2])
    @clause("SUB-04")
    def test_allocator_accounts_for_every_page(self, sglang_platform: Any, seed: int) -> None:
        """Pages are unique while held, a too-large request takes nothing, all come back."""
        cls = factory_class(sglang_platform, "get_paged_allocator_cls")
        num_pages = 16
        allocator = cls(num_pages=num_pages, page_size=2)
        rng = random.Random(seed)
        held: list[list[int]] = []
        for _ in range(40):
            free_before = allocator.available_pages()
            if held and rng.random() < 0.4:
                allocator.free(held.pop(rng.randrange(len(held))))
                continue
            want = rng.randint(1, 6)
            pages = allocator.alloc(want)
            in_use = {page for chunk in held for page in chunk}
            if pages is None:
                assert want > free_before, f"alloc({want}) failed with {free_before} pages free"
                assert allocator.available_pages() == free_before, "a failed alloc took pages"
                continue
            assert len(pages) == want, f"alloc({want}) gave {pages}"
            assert len(set(pages)) == want, f"alloc({want}) repeated pages: {pages}"
            assert all(0 <= p < num_pages for p in pages), f"pages out of range: {pages}"
            assert not in_use & set(pages), f"pages handed out twice: {sorted(in_use & set(pages))}"
            assert allocator.available_pages() == free_before - want
            held.append(pages)
        for chunk in held:
            allocator.free(chunk)
        assert allocator.available_pages() == num_pages, "not every page came back"
        everything = allocator.alloc(num_pages)
        assert everything is not None
        assert sorted(everything) == list(range(num_pages))

    @clause("SUB-05")
    def test_graph_runner_class(self, sglang_platform: Any) -> None:
        """A class whose constructor and members are those of ``GraphRunner``."""
        cls = factory_class(sglang_platform, "get_graph_runner_cls")
        problem = unbindable(cls, object())
        assert problem is None, f"{cls.__qualname__}(model_runner) does not fit: {problem}"
        missing = missing_members(cls, ("can_run", "replay"))
        assert not missing, f"{cls.__qualname__} lacks GraphRunner members {missing}"

    @clause("SUB-06")
    def test_default_attention_backend(self, sglang_target: Target, sglang_platform: Any) -> None:
        """The default backend is registered (after ``init_backend()``) and fits the protocol."""
        from sglang.srt.layers.attention import get_attention_backend_cls

        platform = initialised(sglang_target)
        name = platform.get_default_attention_backend()
        assert isinstance(name, str), f"get_default_attention_backend() returned {name!r}"
        assert name, "get_default_attention_backend() returned an empty name"
        cls = get_attention_backend_cls(name)
        problem = unbindable(cls, object())
        assert problem is None, (
            f"attention backend {name!r}: {cls.__qualname__}(kv_pool) does not fit: {problem}"
        )
        missing = missing_members(cls, ("init_forward_metadata", "forward"))
        assert not missing, f"attention backend {name!r} lacks {missing}"

    @clause("SUB-07")
    def test_graph_runner_replays_decode_steps(
        self, sglang_target: Target, sglang_platform: Any
    ) -> None:
        """Declared capture: decode batches go through ``replay`` and give eager's logits.

        Each batch size is replayed with :data:`DECODE_BATCHES` different
        batches (other tokens, other lengths), each compared with eager: the
        first replay of a size may be its capture, so only a later one shows
        that a replay reads the batch it is given.
        """
        from sglang.conformance.levels.test_end_to_end import make_test_model
        from sglang.srt.model_executor.model_runner import ModelRunner

        initialised(sglang_target)
        runner = ModelRunner(make_test_model(), max_total_tokens=256, page_size=4)
        graphs = runner.graph_runner
        assert graphs is not None, (
            "support_cuda_graph() is true, but the runtime built no graph runner"
        )
        for size in (1, 3):
            eager = [
                _replay_against_eager(runner, graphs, size, batch)
                for batch in range(DECODE_BATCHES)
            ]
            assert not any(map(eager[0].equal, eager[1:])), (
                f"the suite's decode batches of {size} gave identical logits: it cannot tell "
                "a replay of the given batch from a replay of another"
            )


DECODE_BATCHES = 2
"""How many different decode batches of each size SUB-07 replays."""


def _replay_against_eager(runner: Any, graphs: Any, size: int, batch: int) -> Any:
    """Prefill batch number *batch* of *size* sequences, decode one step: replay vs eager.

    Return the eager logits (on the host).
    """
    import torch

    from sglang.srt.model_executor.model_runner import SequenceState

    name = type(graphs).__qualname__
    # a later batch has other tokens and longer sequences than an earlier one
    seqs = [
        SequenceState([t + 7 * batch for t in [1 + i, 5, 9, 2 + i, *[3 + i, 8] * batch]])
        for i in range(size)
    ]
    try:
        runner.forward(seqs)  # the prefill
        for seq in seqs:
            seq.token_ids.append(7 + 6 * batch)
        step = runner.prepare(seqs)
        assert graphs.can_run(step), (
            f"support_cuda_graph() is true, but {name}.can_run() is false for a decode "
            f"batch of {size}: nothing is replayed from a captured graph"
        )
        with runner.platform.inference_mode():
            replayed = graphs.replay(step).float().cpu()
            eager = runner.forward_eager(step).float().cpu()
        torch.testing.assert_close(
            replayed,
            eager,
            rtol=1e-4,
            atol=1e-4,
            msg=lambda text: (
                f"{name}.replay() differs from eager decoding on decode batch {batch + 1} "
                f"of {size} sequence(s): {text}"
            ),
        )
        return eager
    finally:
        for seq in seqs:
            runner.release(seq)
