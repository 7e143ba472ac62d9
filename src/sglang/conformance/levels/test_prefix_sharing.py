"""Prefix sharing [SUB-08, E2E-04]: shared KV pages and prefill that starts mid-sequence.

The reference runtime's prefix cache hands one sequence's KV pages to
others: a new sequence's page table starts with pages another sequence
wrote, and its prefill computes only the tokens after them
(``extend_prefix_lens`` > 0). A KV pool or attention backend that is right
only when every sequence owns its pages and prefills from position 0 passes
every other clause and then serves wrong tokens; these clauses catch it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sglang.conformance import _probes
from sglang.conformance._clauses import clause
from sglang.conformance._target import Target
from sglang.conformance.levels._support import initialised

__all__ = ["TestPrefixSharing"]

_PREFIX = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26]  # three pages of four
_TOLERANCE = 1e-4

_SCRIPT = """
import json
from sglang.srt.entrypoints.engine import Engine
system = [(7 * i) % 150 + 3 for i in range(40)]
waves = [[system + [11, 12, 13], [(5 * i) % 140 + 9 for i in range(50)]],
         [system + [31], system + [11, 12, 14, 15]]]
params = {{"temperature": 0, "max_new_tokens": 8, "ignore_eos": True}}
if __name__ == "__main__":
    results = {{}}
    configs = {{"shared": {{"chunked_prefill_size": 8}},
               "mixed": {{"chunked_prefill_size": 8, "enable_mixed_chunk": True}},
               "alone": {{"disable_radix_cache": True, "chunked_prefill_size": -1}}}}
    for name, flags in configs.items():
        with Engine(model_path={model!r}, dtype="float32", max_total_tokens=512, page_size=4,
                    **flags) as engine:
            outs = [o for wave in waves
                    for o in engine.generate(input_ids=wave, sampling_params=params)]
        results[name] = [[o["output_ids"], o["meta_info"]["cached_tokens"]] for o in outs]
    print("\\nRESULT " + json.dumps(results))
"""


class TestPrefixSharing:
    """The selected platform's KV pool and attention backend under prefix sharing."""

    @clause("SUB-08")
    def test_shared_pages_and_mid_sequence_prefill(
        self, sglang_target: Target, sglang_platform: Any
    ) -> None:
        """Shared pages, prefill mid-sequence and mixed steps give each sequence its logits.

        A prefill after shared pages, a decode over them and a decode in a
        prefill's step (``--enable-mixed-chunk``).
        """
        import torch

        from sglang.conformance.levels.test_end_to_end import make_test_model
        from sglang.srt.mem_cache.sequence import SequenceState
        from sglang.srt.model_executor.model_runner import ModelRunner

        initialised(sglang_target)
        runner = ModelRunner(make_test_model(), max_total_tokens=256, page_size=4)
        first, second, other = [*_PREFIX, 20, 21, 22], [*_PREFIX, 30, 31], [7, 8, 9, 10, 11]

        def alone(ids: list[int]) -> torch.Tensor:
            seq = SequenceState(list(ids))
            try:
                return runner.forward([seq]).float().cpu()
            finally:
                runner.release(seq)

        def compare(got: torch.Tensor, ids: list[int], what: str) -> None:
            torch.testing.assert_close(
                got.float().cpu(),
                alone(ids)[0],
                rtol=_TOLERANCE,
                atol=_TOLERANCE,
                msg=lambda text: f"{what} differs from computing the sequence alone: {text}",
            )

        owner = SequenceState(list(first))
        runner.forward([owner])
        shared = len(_PREFIX) // 4
        reader = SequenceState(list(second), list(owner.pages[:shared]), len(_PREFIX))
        fresh = SequenceState(list(other))
        joining = SequenceState([5, 6, 7, 8, 9, 10])
        try:
            logits = runner.forward([reader, fresh])  # mid-sequence prefill next to a full one
            compare(logits[0], second, "a prefill that starts after 12 tokens on shared pages")
            compare(logits[1], other, "a full prefill batched with a mid-sequence one")
            for seq in (owner, reader):
                seq.token_ids.append(7)
            logits = runner.forward([owner, reader])  # both decode over the shared pages
            compare(logits[0], [*first, 7], "the owner's decode step over pages it shares")
            compare(logits[1], [*second, 7], "a decode step over pages another sequence wrote")
            owner.token_ids.append(8)
            logits = runner.forward([owner, joining])  # a mixed step (--enable-mixed-chunk)
            compare(logits[0], [*first, 7, 8], "a decode step in a prefill's step")
            compare(logits[1], joining.token_ids, "a prefill in the step of a decode")
        finally:
            runner.allocator.free(reader.pages[shared:])
            runner.release(owner)
            runner.release(fresh)
            runner.release(joining)
        assert runner.allocator.available_pages() == runner.allocator.num_pages

    @clause("E2E-04")
    def test_engine_with_prefix_cache_and_chunks_matches_without(
        self, sglang_platform: Any
    ) -> None:
        """The engine with its prefix cache and small chunks generates what it does without."""
        from sglang.conformance.levels.test_end_to_end import make_test_model

        script = _SCRIPT.format(model=str(make_test_model()))
        proc = _probes.run_python(["-c", script], env={}, timeout=600)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
        if line is None:
            pytest.fail(f"the engine run failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        results = json.loads(line.removeprefix("RESULT "))
        shared, alone = results["shared"], results["alone"]
        assert [c for _, c in shared][2:] == [40, 40], (
            f"the second wave should read the 40-token system prompt from the prefix cache: "
            f"cached_tokens {[c for _, c in shared]}"
        )
        assert [ids for ids, _ in shared] == [ids for ids, _ in alone], (
            "with the prefix cache and 8-token chunks the device generated "
            f"{[ids for ids, _ in shared]}, without them {[ids for ids, _ in alone]}"
        )
        mixed = [ids for ids, _ in results["mixed"]]
        assert mixed == [ids for ids, _ in alone], (
            "with --enable-mixed-chunk (decodes in the chunks' steps) the device generated "
            f"{mixed}, without the cache and chunks {[ids for ids, _ in alone]}"
        )
