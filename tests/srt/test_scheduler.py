"""The scheduler step by step: progress at capacity, retraction, eviction and ``lpm``'s bound.

Each test drives a real :class:`~sglang.srt.managers.scheduler.Scheduler`
in this process (:mod:`tests.srt.scheduler_harness`) with a bounded number
of steps, and ``SGLANG_CHECK_KV_ACCOUNTING=1`` (the suite's default) checks
the page accounting after every step.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from sglang.srt.managers.schedule_policy import STARVATION_ROUNDS
from sglang.testing.make_model import make_model
from tests.srt.scheduler_harness import cpu_platform, scheduler


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_model(tmp_path_factory.mktemp("scheduler") / "llama", arch="llama")


@pytest.fixture(autouse=True)
def _cpu() -> Iterator[None]:
    """Each test selects the CPU platform itself (other modules' tests select others)."""
    with cpu_platform():
        yield


def prompt(start: int, length: int) -> list[int]:
    return [(start + i) % 200 + 3 for i in range(length)]


@pytest.mark.parametrize("disable_radix_cache", [False, True])
def test_a_request_that_alone_fills_the_pool_ends_at_the_capacity(
    model: Path, disable_radix_cache: bool, caplog: pytest.LogCaptureFixture
) -> None:
    sched = scheduler(model, max_total_tokens=64, disable_radix_cache=disable_radix_cache)
    assert sched.check_every_step
    with caplog.at_level(logging.WARNING, "sglang.srt.managers.scheduler"):
        rid = sched.submit(prompt(0, 5), max_new_tokens=100)
        sched.run(max_steps=80)
    result = sched.results[rid]
    assert result.finish == {"type": "length"}
    assert 5 + len(result.ids) >= 64  # it grew until the pool was full
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert rid in warnings[0]
    assert "capacity 64" in warnings[0]
    assert "--max-total-tokens" in warnings[0]
    after = sched.submit(prompt(7, 5), max_new_tokens=3)  # and the scheduler goes on serving
    sched.run(max_steps=10)
    assert len(sched.results[after].ids) == 3


def test_64_requests_with_distinct_prefixes_through_a_pool_for_four_all_finish(
    model: Path, caplog: pytest.LogCaptureFixture
) -> None:
    prompts = [prompt(13 * n, 42) for n in range(64)]
    roomy = scheduler(model, max_total_tokens=4096)
    alone = [roomy.submit(p, max_new_tokens=8) for p in prompts]
    roomy.run(max_steps=200)
    # 48 pages hold four prompts (11 pages each) but not four whole requests (13 pages
    # each); conservativeness near 0 admits on what is free now, so decodes run short
    tight = scheduler(model, max_total_tokens=192, schedule_conservativeness=0.01)
    with caplog.at_level(logging.DEBUG, "sglang.srt.managers.scheduler"):
        rids = [tight.submit(p, max_new_tokens=8) for p in prompts]
        tight.run(max_steps=64 * 9 * 4)
    assert [tight.results[r].ids for r in rids] == [roomy.results[r].ids for r in alone]
    assert all(tight.results[r].finish == {"type": "length"} for r in rids)
    retracted = [r for r in caplog.records if r.getMessage().startswith("retracted")]
    assert retracted, "the pool was never short: the test does not exercise retraction"


def test_a_retracted_request_keeps_its_tokens_and_is_not_retracted_again_before_progress(
    model: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sched = scheduler(model, max_total_tokens=96, schedule_conservativeness=0.01)
    with caplog.at_level(logging.DEBUG, "sglang.srt.managers.scheduler"):
        rids = [sched.submit(prompt(40 * n, 10), max_new_tokens=40) for n in range(3)]
        sched.run(max_steps=400)
    roomy = scheduler(model, max_total_tokens=4096)
    alone = [roomy.submit(prompt(40 * n, 10), max_new_tokens=40) for n in range(3)]
    roomy.run(max_steps=100)
    assert [sched.results[r].ids for r in rids] == [roomy.results[r].ids for r in alone]
    victims = [r.getMessage().split()[1] for r in caplog.records if "retracted" in r.getMessage()]
    assert victims
    # between two retractions of one request, it made progress (its output grew)
    lengths: dict[str, int] = {}
    for record in caplog.records:
        message = record.getMessage()
        if message.startswith("retracted"):
            rid, out = message.split()[1], int(message.rsplit("output ", 1)[1].split()[0])
            assert out > lengths.get(rid, -1), f"{rid} retracted twice at output {out}"
            lengths[rid] = out


@pytest.mark.parametrize(("policy", "position"), [("lpm", STARVATION_ROUNDS), ("fcfs", 0)])
def test_lpm_overtakes_a_request_a_bounded_number_of_rounds(
    model: Path, policy: str, position: int
) -> None:
    sched = scheduler(model, max_total_tokens=4096, max_running_requests=1, schedule_policy=policy)
    shared = prompt(100, 32)
    sched.submit(shared, max_new_tokens=1)
    sched.run(max_steps=5)  # the shared prefix is cached now
    lonely = sched.submit(prompt(0, 20), max_new_tokens=1)
    followers = [sched.submit([*shared, n + 3], max_new_tokens=1) for n in range(20)]
    sched.run(max_steps=100)
    order = sorted([lonely, *followers], key=lambda r: sched.results[r].first_step or 0)
    assert order.index(lonely) == position


@pytest.mark.parametrize("mixed", [False, True])
def test_running_requests_keep_decoding_while_a_long_prompt_is_chunked(
    model: Path, mixed: bool
) -> None:
    sched = scheduler(model, chunked_prefill_size=16, enable_mixed_chunk=mixed)
    streams = [sched.submit(prompt(10 * i, 5), max_new_tokens=40) for i in range(3)]
    while not all(sched.results.get(r) for r in streams):
        sched.step()
    long = sched.submit(prompt(50, 100))
    gaps: list[int] = []  # steps between two tokens of the first stream, during the prefill
    last, before = sched.steps, len(sched.results[streams[0]].ids)
    while not sched.results.get(long):
        batch = sched.get_next_batch_to_run()
        assert batch is not None
        if mixed:  # one step holds the chunk and every running request's next token
            assert batch.is_prefill
            assert set(batch.decode_reqs) == set(sched.running)
            new = sum(r.seq.target_len - r.seq.cached_len for r in batch.reqs)
            assert new <= 16
        sched.process_batch_result(batch, sched.run_batch(batch))
        sched.steps += 1
        count = len(sched.results[streams[0]].ids)
        if count > before:
            gaps.append(sched.steps - last)
            last, before = sched.steps, count
    assert gaps
    assert max(gaps) == (1 if mixed else 2)  # mixed: a token every step; else every other
    sched.run(max_steps=200)
    assert all(len(sched.results[r].ids) == 40 for r in streams)
