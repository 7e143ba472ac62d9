"""``sglang.bench_serving`` without a server: datasets, Poisson arrivals, metrics, stream parsing.

The request functions are fed scripted event streams through
:class:`httpx.MockTransport` here; ``tests/http/test_bench_serving.py`` runs
the command against a real server.
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from sglang.bench_serving import (
    ASYNC_REQUEST_FUNCS,
    RequestFuncInput,
    RequestFuncOutput,
    Vocabulary,
    arrival_times,
    calculate_metrics,
    format_result,
    make_parser,
    paced,
    percentile,
    sample_generated_shared_prefix_requests,
    sample_random_requests,
)
from sglang.testing.tokenizer_files import SIMPLE_TEMPLATE, write_tokenizer

SPECIAL = {"<s>", "</s>", "<|im_start|>", "<|im_end|>"}


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tok")
    write_tokenizer(
        directory,
        vocab_size=384,
        add_bos=True,
        chat_template=SIMPLE_TEMPLATE,
        template_file=False,
        model_max_length=256,
    )
    return directory


@pytest.fixture(scope="module")
def vocab(tokenizer_dir: Path) -> Vocabulary:
    return Vocabulary.from_tokenizer(tokenizer_dir)


# -- datasets --------------------------------------------------------------------------------


def test_vocabulary_leaves_out_added_and_special_tokens(tokenizer_dir: Path) -> None:
    data = json.loads((tokenizer_dir / "tokenizer.json").read_text())
    special_ids = {t["id"] for t in data["added_tokens"]}
    assert {t["content"] for t in data["added_tokens"]} == SPECIAL
    vocab = Vocabulary.from_tokenizer(tokenizer_dir / "tokenizer.json")
    assert set(vocab.ids) == set(data["model"]["vocab"].values()) - special_ids
    assert list(vocab.ids) == sorted(vocab.ids)
    assert Vocabulary.from_tokenizer(tokenizer_dir) == vocab


def test_vocabulary_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"tokenizer\.json.*--tokenizer"):
        Vocabulary.from_tokenizer(tmp_path)


def test_random_prompts_have_exact_lengths_at_ratio_one(vocab: Vocabulary) -> None:
    rows = sample_random_requests(
        vocab, num_prompts=20, input_len=50, output_len=7, range_ratio=1.0, seed=3
    )
    assert len(rows) == 20
    assert all(len(r.prompt) == r.prompt_len == 50 and r.output_len == 7 for r in rows)
    allowed = set(vocab.ids)
    assert all(set(r.prompt) <= allowed for r in rows)
    assert len({tuple(r.prompt) for r in rows}) == 20


def test_random_lengths_stay_in_range_and_follow_the_seed(vocab: Vocabulary) -> None:
    def rows(seed: int) -> list[tuple[int, ...]]:
        sample = sample_random_requests(
            vocab, num_prompts=200, input_len=100, output_len=40, range_ratio=0.5, seed=seed
        )
        assert all(50 <= r.prompt_len == len(r.prompt) <= 100 for r in sample)
        assert all(20 <= r.output_len <= 40 for r in sample)
        assert len({r.prompt_len for r in sample}) > 20  # lengths really vary
        return [tuple(r.prompt) for r in sample]

    assert rows(1) == rows(1)
    assert rows(1) != rows(2)


def test_random_lengths_at_ratio_zero_reach_down_to_one(vocab: Vocabulary) -> None:
    sample = sample_random_requests(
        vocab, num_prompts=400, input_len=4, output_len=4, range_ratio=0.0, seed=0
    )
    assert {r.prompt_len for r in sample} == {1, 2, 3, 4}


def test_shared_prefix_groups_share_exactly_their_system_prompt(vocab: Vocabulary) -> None:
    rows = sample_generated_shared_prefix_requests(
        vocab,
        num_groups=3,
        prompts_per_group=5,
        system_prompt_len=40,
        question_len=6,
        output_len=9,
        seed=0,
    )
    assert len(rows) == 15
    assert all(r.prompt_len == len(r.prompt) == 46 and r.output_len == 9 for r in rows)
    groups: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for row in rows:
        groups.setdefault(tuple(row.prompt[:40]), []).append(tuple(row.prompt[40:]))
    assert len(groups) == 3
    assert all(len(questions) == 5 == len(set(questions)) for questions in groups.values())
    order = [list(groups).index(tuple(r.prompt[:40])) for r in rows]
    assert order != sorted(order), "the groups are interleaved"
    again = sample_generated_shared_prefix_requests(
        vocab,
        num_groups=3,
        prompts_per_group=5,
        system_prompt_len=40,
        question_len=6,
        output_len=9,
        seed=0,
    )
    assert again == rows


# -- arrivals --------------------------------------------------------------------------------


def test_infinite_rate_sends_everything_at_once() -> None:
    assert arrival_times(5, math.inf, seed=0) == [0.0] * 5


def test_poisson_gaps_are_exponential_with_the_rate_as_mean() -> None:
    times = arrival_times(20_000, 4.0, seed=7)
    assert times[0] == 0.0
    gaps = np.diff(times)
    assert (gaps > 0).all()
    assert statistics.fmean(gaps) == pytest.approx(0.25, rel=0.03)
    # an exponential distribution: the standard deviation equals the mean, P(gap > mean) = 1/e
    assert statistics.pstdev(gaps) == pytest.approx(0.25, rel=0.05)
    assert float((gaps > 0.25).mean()) == pytest.approx(math.exp(-1), abs=0.02)
    assert arrival_times(50, 4.0, seed=7) == times[:50]
    assert arrival_times(50, 4.0, seed=8) != times[:50]


def test_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        arrival_times(3, 0.0, seed=0)
    with pytest.raises(SystemExit):
        make_parser().parse_args(["--request-rate", "0"])


def test_paced_yields_each_item_at_its_time() -> None:
    async def run() -> list[tuple[str, float]]:
        start = time.perf_counter()
        return [(x, time.perf_counter() - start) async for x in paced("abc", [0.0, 0.05, 0.15])]

    got = asyncio.run(run())
    assert [x for x, _ in got] == ["a", "b", "c"]
    assert got[0][1] < 0.03
    assert 0.05 <= got[1][1] < 0.12
    assert 0.15 <= got[2][1] < 0.25


# -- metrics ---------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0, 1, 25, 50, 90, 95, 99, 100])
def test_percentile_matches_numpy(q: float) -> None:
    values = [3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0]
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    assert percentile([], q) == 0.0


def output(ttft: float, itl: list[float], prompt: int, cached: int) -> RequestFuncOutput:
    latency = ttft + sum(itl)
    return RequestFuncOutput(
        success=True,
        latency=latency,
        ttft=ttft,
        itl=itl,
        prompt_len=prompt,
        output_len=len(itl) + 1,
        cached_tokens=cached,
    )


def test_metrics_of_a_small_run() -> None:
    outs = [
        output(0.1, [0.02, 0.04], prompt=10, cached=0),
        output(0.3, [0.06], prompt=30, cached=20),
        RequestFuncOutput(success=False, prompt_len=99, error="boom"),
    ]
    m = calculate_metrics(outs, duration=2.0)
    assert (m.completed, m.failed) == (2, 1)
    assert (m.total_input_tokens, m.total_output_tokens, m.total_cached_tokens) == (40, 5, 20)
    assert m.request_throughput == pytest.approx(1.0)
    assert m.input_throughput == pytest.approx(20.0)
    assert m.output_throughput == pytest.approx(2.5)
    assert m.total_throughput == pytest.approx(22.5)
    assert m.mean_ttft_ms == pytest.approx(200.0)
    assert m.median_ttft_ms == pytest.approx(200.0)
    assert m.p99_ttft_ms == pytest.approx(298.0)
    assert m.mean_itl_ms == pytest.approx(40.0)
    assert m.median_itl_ms == pytest.approx(40.0)
    assert m.max_itl_ms == pytest.approx(60.0)
    # TPOT: (latency - ttft) / (output_len - 1) = 0.03 and 0.06
    assert m.mean_tpot_ms == pytest.approx(45.0)
    assert m.mean_e2e_latency_ms == pytest.approx((160 + 360) / 2)
    assert m.concurrency == pytest.approx((0.16 + 0.36) / 2.0)
    assert m.cache_hit_rate == pytest.approx(0.5)


def test_metrics_of_a_run_where_everything_failed() -> None:
    m = calculate_metrics([RequestFuncOutput(error="x")], duration=1.0)
    assert (m.completed, m.failed, m.cache_hit_rate, m.median_itl_ms) == (0, 1, 0.0, 0.0)


def test_result_block_prints_upstreams_labels() -> None:
    m = calculate_metrics([output(0.1, [0.02, 0.04], prompt=10, cached=5)], duration=2.0)
    text = format_result(
        m, backend="sglang", request_rate=math.inf, max_concurrency=None, duration=2.0
    )
    labels = [
        "Backend:",
        "Traffic request rate:",
        "Successful requests:",
        "Benchmark duration (s):",
        "Total input tokens:",
        "Total generated tokens:",
        "Request throughput (req/s):",
        "Input token throughput (tok/s):",
        "Output token throughput (tok/s):",
        "Mean E2E Latency (ms):",
        "Median E2E Latency (ms):",
        "P99 E2E Latency (ms):",
        "Mean TTFT (ms):",
        "Median TTFT (ms):",
        "P99 TTFT (ms):",
        "Mean ITL (ms):",
        "Median ITL (ms):",
        "P99 ITL (ms):",
        "Cache hit rate:",
    ]
    lines = text.splitlines()
    for label in labels:
        assert any(line.startswith(label) for line in lines), label
    assert "Cache hit rate:                          50.00%" in lines
    assert "Failed requests:" not in text
    failed = calculate_metrics([RequestFuncOutput(error="x")], duration=1.0)
    assert "Failed requests:" in format_result(
        failed, backend="sglang", request_rate=1.0, max_concurrency=4, duration=1.0
    )


def test_parser_takes_upstreams_flags_and_defaults() -> None:
    argv = [
        *("--backend", "sglang-oai", "--dataset-name", "generated-shared-prefix"),
        *("--gsp-num-groups", "2", "--gsp-prompts-per-group", "3"),
        *("--gsp-system-prompt-len", "64", "--gsp-question-len", "8", "--gsp-output-len", "4"),
        *("--request-rate", "2.5", "--seed", "9", "--flush-cache", "--disable-tqdm"),
        *("--output-file", "x.jsonl", "--base-url", "http://h:1"),
    ]
    args = vars(make_parser().parse_args(argv))
    expected = {
        "backend": "sglang-oai",
        "dataset_name": "generated-shared-prefix",
        "request_rate": 2.5,
        "gsp_num_groups": 2,
        "gsp_prompts_per_group": 3,
        "gsp_system_prompt_len": 64,
        "gsp_question_len": 8,
        "gsp_output_len": 4,
        "seed": 9,
        "flush_cache": True,
        "disable_tqdm": True,
        "output_file": "x.jsonl",
        "base_url": "http://h:1",
    }
    assert {key: args[key] for key in expected} == expected
    defaults = vars(make_parser().parse_args([]))
    assert math.isinf(defaults.pop("request_rate"))
    upstream = {"num_prompts": 1000, "random_input_len": 1024, "random_output_len": 1024}
    upstream.update(port=30000, seed=1, gsp_num_groups=64, gsp_system_prompt_len=2048)
    assert {key: defaults[key] for key in upstream} == upstream
    assert defaults["backend"] == "sglang"


# -- stream parsing, against scripted event streams ------------------------------------------


def sse(*payloads: object) -> bytes:
    return b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in payloads) + (
        b"data: [DONE]\n\n"
    )


def run_one(
    backend: str, body: bytes, status: int = 200
) -> tuple[RequestFuncOutput, dict[str, Any]]:
    """Send one request to a transport that answers *body*; return the output and what was sent."""
    sent: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(status, content=body)

    async def go() -> RequestFuncOutput:
        transport = httpx.MockTransport(handle)
        async with httpx.AsyncClient(base_url="http://x", transport=transport) as client:
            req = RequestFuncInput([5, 6, 7], "/generate", 3, 4, model="m")
            return await ASYNC_REQUEST_FUNCS[backend](client, req, None)

    out = asyncio.run(go())
    return out, sent[0]


def test_native_stream_counts_every_token_of_a_chunk() -> None:
    def chunk(text: str, ids: list[int], completion: int) -> dict[str, object]:
        meta = {"prompt_tokens": 3, "cached_tokens": 2, "completion_tokens": completion}
        return {"text": text, "output_ids": ids, "meta_info": meta}

    body = sse(chunk("a", [1], 1), chunk("bc", [2, 3], 3), chunk("d", [4], 4))
    out, sent = run_one("sglang", body)
    assert out.success, out.error
    assert (out.output_len, out.cached_tokens, out.generated_text) == (4, 2, "abcd")
    assert len(out.itl) == 3  # the two-token chunk counts two gaps
    assert out.itl[0] == out.itl[1]
    assert 0 < out.ttft <= out.latency
    assert sent["input_ids"] == [5, 6, 7]
    assert sent["stream"] is True
    assert sent["sampling_params"] == {"temperature": 0.0, "max_new_tokens": 4, "ignore_eos": True}


def test_openai_stream_reads_usage_and_cached_tokens() -> None:
    usage: dict[str, object] = {"prompt_tokens": 3, "completion_tokens": 4}
    usage["prompt_tokens_details"] = {"cached_tokens": 1}
    body = sse(
        {"choices": [{"text": "a"}]},
        {"choices": [{"text": ""}]},
        {"choices": [{"text": "bc"}]},
        {"choices": [{"text": "d", "finish_reason": "length"}]},
        {"choices": [], "usage": usage},
    )
    out, sent = run_one("sglang-oai", body)
    assert out.success, out.error
    assert (out.output_len, out.cached_tokens, out.generated_text) == (4, 1, "abcd")
    assert len(out.itl) == 2  # one gap per event with text, as upstream counts
    assert sent["prompt"] == [5, 6, 7]
    assert sent["model"] == "m"
    assert sent["stream_options"] == {"include_usage": True}
    assert (sent["max_tokens"], sent["ignore_eos"]) == (4, True)


@pytest.mark.parametrize("backend", ["sglang", "sglang-oai"])
def test_refusals_and_error_events_are_failed_requests(backend: str) -> None:
    out, _ = run_one(backend, b'{"error": {"message": "bad"}}', status=400)
    assert not out.success
    assert out.error.startswith("_StreamError: HTTP 400")
    assert "bad" in out.error
    out, _ = run_one(backend, sse({"error": {"message": "engine died"}}))
    assert not out.success
    assert "engine died" in out.error
