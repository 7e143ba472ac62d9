"""``/generate``, ``/metrics``, server info and aborts of clients that go away, over httpx."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.http.conftest import API_KEY
from tests.http.server import ServerProcess

GREEDY = {"temperature": 0, "max_new_tokens": 10, "ignore_eos": True}


@pytest.fixture(scope="module")
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
        yield client


def events(response: httpx.Response) -> list[str]:
    """The ``data:`` payloads of an event stream."""
    return [line[len("data: ") :] for line in response.iter_lines() if line.startswith("data: ")]


def test_generate_answers_like_engine_generate(http: httpx.Client) -> None:
    out = http.post("/generate", json={"text": "Hello", "sampling_params": GREEDY}).json()
    assert set(out) == {"text", "output_ids", "meta_info"}
    assert len(out["output_ids"]) == 10
    meta = out["meta_info"]
    assert meta["completion_tokens"] == 10
    assert meta["finish_reason"] == {"type": "length"}
    assert meta["prompt_tokens"] > 0
    assert isinstance(meta["id"], str)


def test_generate_from_ids_with_logprobs_and_a_batch(http: httpx.Client) -> None:
    text = http.post("/generate", json={"text": "Hello", "sampling_params": GREEDY}).json()
    ids = http.post("/v1/completions", json={"prompt": "x", "max_tokens": 0})  # warm path check
    assert ids.status_code == 200
    body = {"input_ids": [[5, 6, 7], [8, 9]], "sampling_params": GREEDY, "return_logprob": True}
    batch = http.post("/generate", json=body).json()
    assert isinstance(batch, list)
    assert len(batch) == 2
    for item in batch:
        triples = item["meta_info"]["output_token_logprobs"]
        assert [t for _, t, _ in triples] == item["output_ids"]
        assert all(lp <= 0 and none is None for lp, _, none in triples)
    assert batch[0]["meta_info"]["prompt_tokens"] == 3
    assert text["output_ids"] != []


def test_streamed_generate_chunks_add_up_to_the_result(http: httpx.Client) -> None:
    whole = http.post("/generate", json={"text": "fox", "sampling_params": GREEDY}).json()
    body = {"text": "fox", "sampling_params": GREEDY, "stream": True}
    with http.stream("POST", "/generate", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        payloads = events(response)
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert [t for c in chunks for t in c["output_ids"]] == whole["output_ids"]
    assert "".join(c["text"] for c in chunks) == whole["text"]
    assert chunks[-1]["meta_info"]["finish_reason"] == {"type": "length"}


def test_generate_refuses_bad_sampling_params(http: httpx.Client) -> None:
    cases = [
        {"text": "a", "sampling_params": {"top_p": 2}},
        {"text": "a", "sampling_params": {"bogus": 1}},
        {"text": "a", "input_ids": [1]},
        {"input_ids": [10**9]},
        {"text": ["a", "b"], "sampling_params": [GREEDY]},
        {"text": "a", "return_logprob": True, "logprob_start_len": 5},
    ]
    for body in cases:
        response = http.post("/generate", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"]["type"] == "invalid_request_error"


def info(http: httpx.Client) -> dict[str, int]:
    data = http.get("/get_server_info").json()
    keys = ("free_pages", "evictable_pages", "total_pages", "running", "waiting")
    return {k: data[k] for k in keys}


def generated_tokens(http: httpx.Client) -> float:
    for family in text_string_to_metric_families(http.get("/metrics").text):
        if family.name == "sglang:generation_tokens":
            return sum(s.value for s in family.samples if s.name.endswith("_total"))
    raise AssertionError("no sglang:generation_tokens_total")


def released(state: dict[str, int]) -> bool:
    """Whether no request holds a page: each one is free or only the prefix cache's."""
    return state["free_pages"] + state["evictable_pages"] == state["total_pages"]


def wait_idle(http: httpx.Client, timeout: float = 30) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    state = info(http)
    while time.monotonic() < deadline and (
        state["running"] or state["waiting"] or not released(state)
    ):
        time.sleep(0.05)
        state = info(http)
    return state


LONG = {"temperature": 0, "max_tokens": 240, "ignore_eos": True}  # near the context (256)


def test_a_client_that_disconnects_mid_stream_is_aborted(
    server: ServerProcess, http: httpx.Client
) -> None:
    wait_idle(http)
    before = generated_tokens(http)
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as own:
        body = {"prompt": "the lazy dog", "stream": True, **LONG}
        with own.stream("POST", "/v1/completions", json=body) as response:
            lines = response.iter_lines()
            got = [next(lines) for _ in range(3)]
            assert got[0].startswith("data: ")
            assert info(http)["running"] == 1
        # leaving both blocks closes the connection mid-stream
    state = wait_idle(http)
    assert released(state)
    assert state["running"] == 0
    assert generated_tokens(http) - before < 240  # it was stopped, not run to the end


def test_a_client_that_gives_up_on_a_plain_request_is_aborted(
    server: ServerProcess, http: httpx.Client
) -> None:
    wait_idle(http)
    before = generated_tokens(http)
    body = {"prompt": "the lazy dog", **LONG}
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{server.url}/v1/completions",
            json=body,
            headers={"Authorization": f"Bearer {API_KEY}"},
            # a plain answer comes only at the end: 240 tokens take far longer than this
            timeout=httpx.Timeout(60, read=0.05),
        )
    state = wait_idle(http)
    assert released(state)
    assert state["running"] == 0
    assert generated_tokens(http) - before < 240


def test_metrics_count_requests_tokens_queue_and_time_to_first_token(
    http: httpx.Client,
) -> None:
    http.post("/v1/completions", json={"prompt": "hello", "max_tokens": 3, "ignore_eos": True})
    http.post("/v1/completions", json={"prompt": "hello", "n": 2})
    response = http.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }
    assert samples[("sglang:num_requests_total", (("endpoint", "completions"),))] >= 1
    assert samples[("sglang:prompt_tokens_total", ())] > 0
    assert samples[("sglang:generation_tokens_total", ())] >= 3
    assert samples[("sglang:time_to_first_token_seconds_count", ())] >= 1
    assert samples[("sglang:e2e_request_latency_seconds_count", ())] >= 1
    assert samples[("sglang:num_queue_reqs", ())] == 0
    assert samples[("sglang:num_running_reqs", ())] == 0
    assert samples[("sglang:kv_pages_total", ())] > 0
    assert samples[("sglang:token_usage", ())] == 0  # cached-only pages count as free
    assert 0 <= samples[("sglang:cache_hit_rate", ())] <= 1
    assert samples[("sglang:inter_token_latency_seconds_count", ())] >= 2  # 3 tokens: 2 gaps


def test_unknown_paths_are_404_in_the_openai_shape(http: httpx.Client) -> None:
    response = http.get("/v1/nothing")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


def test_flush_cache_empties_the_prefix_cache_only_when_idle(
    server: ServerProcess, http: httpx.Client
) -> None:
    prompt = {
        "input_ids": list(range(10, 50)),
        "sampling_params": {"max_new_tokens": 2, "temperature": 0},
    }
    http.post("/generate", json=prompt).raise_for_status()
    assert wait_idle(http)["evictable_pages"] > 0  # the prompt's pages stay cached
    again = http.post("/generate", json=prompt).json()
    assert again["meta_info"]["cached_tokens"] == 36  # 39 matchable tokens, pages of 4
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as own:
        body = {"prompt": "the lazy dog", "stream": True, **LONG}
        with own.stream("POST", "/v1/completions", json=body) as response:
            lines = response.iter_lines()  # held: a dropped iterator closes the stream
            assert next(lines).startswith("data: ")
            busy = http.post("/flush_cache")
            assert busy.status_code == 400
            message = busy.json()["error"]["message"]
            assert "not flushed: 1 request running or waiting" in message
    wait_idle(http)
    done = http.post("/flush_cache")
    assert (done.status_code, done.text) == (200, "Cache flushed.\n")
    state = info(http)
    assert state["evictable_pages"] == 0
    assert state["free_pages"] == state["total_pages"]
    fresh = http.post("/generate", json=prompt).json()
    assert fresh["meta_info"]["cached_tokens"] == 0
    assert fresh["output_ids"] == again["output_ids"]


def test_a_disconnect_of_a_request_sharing_pages_leaves_the_other_unchanged(
    server: ServerProcess, http: httpx.Client
) -> None:
    system = [(13 * i) % 150 + 3 for i in range(48)]
    sampling = {"temperature": 0, "max_new_tokens": 40, "ignore_eos": True}

    def body(n: int, stream: bool) -> dict[str, object]:
        return {"input_ids": [*system, 7 + n], "sampling_params": sampling, "stream": stream}

    alone = http.post("/generate", json=body(1, False)).json()["output_ids"]
    headers = {"Authorization": f"Bearer {API_KEY}"}
    kept: list[int] = []
    with (
        httpx.Client(base_url=server.url, headers=headers, timeout=60) as a,
        httpx.Client(base_url=server.url, headers=headers, timeout=60) as b,
        a.stream("POST", "/generate", json=body(0, True)) as leaving,
        b.stream("POST", "/generate", json=body(1, True)) as staying,
    ):
        gone, lines = leaving.iter_lines(), staying.iter_lines()
        assert next(gone).startswith("data: ")
        leaving.close()  # the client goes away while both share the system prompt's pages
        for line in lines:
            if line.startswith("data: {"):
                chunk = json.loads(line.removeprefix("data: "))
                kept += chunk["output_ids"]  # each chunk holds the new tokens
                assert chunk["meta_info"]["cached_tokens"] == 48
    assert kept == alone
    assert released(wait_idle(http))
