"""The prefix cache and chunked prefill change what is computed, never what is generated.

For each architecture one workload (requests sharing a system prompt,
arriving in two waves so the second finds it cached, one prompt far longer
than a chunk, greedy and seeded sampling) runs through real schedulers in
this process with the cache on and off and chunking on and off; the tokens
must be identical. ``cached_tokens`` must be the shared prefix in whole
pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.testing.make_model import make_model
from tests.srt.scheduler_harness import RecordingScheduler, cpu_platform, scheduler

ARCHS = ("llama", "mistral", "qwen2", "qwen3")
CONFIGS = {
    "cache+chunked": {"chunked_prefill_size": 16},
    "cache+mixed": {"chunked_prefill_size": 16, "enable_mixed_chunk": True},
    "cache": {"chunked_prefill_size": -1},
    "no-cache+chunked": {"chunked_prefill_size": 16, "disable_radix_cache": True},
    "no-cache": {"chunked_prefill_size": -1, "disable_radix_cache": True},
}
SYSTEM = [(7 * i) % 150 + 3 for i in range(40)]
WAVES = [
    [[*SYSTEM, 11, 12, 13], [*SYSTEM, 21, 22], [(5 * i) % 140 + 9 for i in range(90)]],
    [[*SYSTEM, 31], [*SYSTEM, 11, 12, 14, 15], [*SYSTEM, 41, 42, 43, 44, 45]],
]
SAMPLING = [{}, {"temperature": 0.9, "top_p": 0.9, "seed": 1234}, {"temperature": 1.2, "seed": 7}]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("prefix-cache")
    return {arch: make_model(root / arch, arch=arch) for arch in ARCHS}


@pytest.fixture(autouse=True)
def _cpu() -> Iterator[None]:
    """Each test selects the CPU platform itself (other modules' tests select others)."""
    with cpu_platform():
        yield


def run_waves(sched: RecordingScheduler) -> tuple[list[list[int]], list[int]]:
    rids = []
    for wave in WAVES:
        for ids, params in zip(wave, SAMPLING, strict=True):
            rids.append(sched.submit(ids, max_new_tokens=10, **params))
        sched.run(max_steps=200)
    return [sched.results[r].ids for r in rids], [sched.results[r].cached_tokens for r in rids]


@pytest.mark.parametrize("arch", ARCHS)
def test_cache_and_chunking_on_or_off_generate_the_same_tokens(
    models: dict[str, Path], arch: str
) -> None:
    outputs = {}
    for name, config in CONFIGS.items():
        sched = scheduler(models[arch], max_total_tokens=2048, **config)
        outputs[name], cached = run_waves(sched)
        if "no-cache" in name:
            assert cached == [0] * 6
        else:  # the second wave reads the system prompt (40 tokens, 10 pages) from the cache
            assert cached[3:] == [40, 40, 40]
    reference = outputs.pop("no-cache")
    assert all(len(ids) == 10 for ids in reference)
    for name, ids in outputs.items():
        assert ids == reference, f"{arch}: {name} differs from no cache, no chunking"


@pytest.mark.parametrize("page_size", [1, 16])
def test_cached_tokens_is_a_shared_200_token_prefix_in_whole_pages(
    models: dict[str, Path], page_size: int
) -> None:
    sched = scheduler(models["llama"], max_total_tokens=2048, page_size=page_size)
    prefix = [(3 * i) % 190 + 5 for i in range(200)]
    first = sched.submit([*prefix, 1, 2, 3], max_new_tokens=2)
    sched.run(max_steps=30)
    second = sched.submit([*prefix, 9, 8], max_new_tokens=2)
    sched.run(max_steps=30)
    assert sched.results[first].cached_tokens == 0
    assert sched.results[second].cached_tokens == 200 // page_size * page_size
    totals = sched.stats.totals()
    assert totals["cached_tokens_total"] == 200 // page_size * page_size
    assert totals["prompt_tokens_total"] == 203 + 202
