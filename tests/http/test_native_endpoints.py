"""The native endpoints, request ids and aborts, over httpx and the openai client.

The module's server runs one request at a time (``--max-running-requests
1``), so a long request keeps the next one queued, and waits at most
:data:`HEALTH_TIMEOUT` seconds for the scheduler in ``/health_generate``.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import psutil  # type: ignore[import-untyped]
import pytest
from openai.types.chat import ChatCompletionMessageParam

import sglang
from tests.http.conftest import API_KEY, MODEL_NAME, serving
from tests.http.server import ServerProcess

HEALTH_TIMEOUT = 1.5
LONG = {"temperature": 0, "max_new_tokens": 200, "ignore_eos": True}


@pytest.fixture(scope="module")
def server(model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    args = ["--api-key", API_KEY, "--served-model-name", MODEL_NAME, "--max-total-tokens", "4096"]
    args += ["--page-size", "4", "--max-running-requests", "1"]
    env = {"SGLANG_HEALTH_CHECK_TIMEOUT": str(HEALTH_TIMEOUT)}
    with serving(model, tmp_path_factory.mktemp("native") / "server.log", args, env) as running:
        yield running


@pytest.fixture(scope="module")
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY, max_retries=0)


class Stream:
    """A streamed ``/generate`` read on a thread: its chunks, whether it started, its end."""

    def __init__(self, http: httpx.Client, body: dict[str, object]) -> None:
        self.chunks: list[dict[str, Any]] = []
        self.started = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(http, body), daemon=True)
        self._thread.start()
        assert self.started.wait(30), "the stream sent nothing"

    def _read(self, http: httpx.Client, body: dict[str, object]) -> None:
        with http.stream("POST", "/generate", json={**body, "stream": True}) as response:
            for line in response.iter_lines():
                if line.startswith("data: {"):
                    self.chunks.append(json.loads(line[len("data: ") :]))
                    self.started.set()

    def result(self) -> tuple[int, dict[str, object]]:
        """Tokens received and the last chunk's finish reason, once the stream ended."""
        self._thread.join(60)
        assert not self._thread.is_alive()
        tokens = sum(len(c["output_ids"]) for c in self.chunks)
        meta = self.chunks[-1]["meta_info"]
        assert isinstance(meta, dict)
        return tokens, meta["finish_reason"]


def idle(http: httpx.Client) -> dict[str, object]:
    """``/get_server_info`` once nothing runs or waits and no request holds a page.

    ``released`` says whether every page is free or only the prefix cache's.
    """
    deadline = time.monotonic() + 30
    while True:
        info: dict[str, object] = http.get("/get_server_info").json()
        held = (info["total_pages"], info["free_pages"], info["evictable_pages"])
        assert all(isinstance(n, int) for n in held)
        free = info["free_pages"] + info["evictable_pages"] == info["total_pages"]  # type: ignore[operator]
        info["released"] = free
        if (free and not info["running"] and not info["waiting"]) or time.monotonic() > deadline:
            return info
        time.sleep(0.05)


def test_retrieve_model_and_404_for_another(client: openai.OpenAI) -> None:
    card = client.models.retrieve(MODEL_NAME)
    assert card.id == MODEL_NAME
    assert card.model_dump()["max_model_len"] == 256
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("gpt-5")
    error = caught.value.body
    assert isinstance(error, dict)
    assert (error["code"], error["param"], error["type"]) == (
        "model_not_found",
        "model",
        "not_found_error",
    )


def test_model_info_and_server_info(http: httpx.Client, model: Path) -> None:
    info = http.get("/get_model_info").json()
    assert info["model_path"] == str(model)
    assert info["tokenizer_path"] == str(model)
    assert info["is_generation"] is True
    assert set(info) >= {"preferred_sampling_params", "weight_version"}
    assert http.get("/model_info").json() == info
    server = http.get("/get_server_info").json()
    assert set(http.get("/server_info").json()) == set(server)
    assert server["version"] == sglang.__version__
    assert server["max_total_num_tokens"] == server["max_total_tokens"] == 4096
    assert server["max_req_input_len"] == 255  # the context (256) minus the token to generate
    assert (server["tp_size"], server["page_size"], server["max_running_requests"]) == (1, 4, 1)
    assert server["served_model_name"] == MODEL_NAME
    assert server["total_pages"] == 1024
    assert server["internal_states"][0]["total_pages"] == 1024
    assert "api_key" not in server
    assert API_KEY not in json.dumps(server)


def test_tokenize_and_detokenize_round_trip(http: httpx.Client) -> None:
    text = "the quick brown fox"
    out = http.post("/tokenize", json={"prompt": text}).json()
    assert out["count"] == len(out["tokens"])
    assert out["max_model_len"] == 256
    generated = http.post(
        "/generate", json={"text": text, "sampling_params": {"max_new_tokens": 1}}
    )
    assert generated.json()["meta_info"]["prompt_tokens"] == out["count"]  # as prompts are
    bare = http.post("/v1/tokenize", json={"prompt": text, "add_special_tokens": False}).json()
    assert bare["tokens"] == out["tokens"][1:]  # the tiny model's tokenizer adds a BOS
    many = http.post("/tokenize", json={"prompt": [text, "dog"], "model": MODEL_NAME}).json()
    assert many["tokens"][0] == out["tokens"]
    assert many["count"] == [len(t) for t in many["tokens"]]
    back = http.post("/detokenize", json={"tokens": bare["tokens"]}).json()
    assert back == {"text": text}
    both = http.post("/v1/detokenize", json={"tokens": [bare["tokens"], []]}).json()
    assert both == {"text": [text, ""]}


def test_tokenizer_endpoints_refuse_bad_input(http: httpx.Client) -> None:
    response = http.post("/detokenize", json={"tokens": [10**9]})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "tokens"
    response = http.post("/tokenize", json={"prompt": "a", "model": "other"})
    assert response.status_code == 404
    unknown = http.post("/tokenize", json={"prompt": "a", "text": "a"}).json()
    assert unknown["error"]["param"] == "text"


def test_probes_answer_without_the_api_key(server: ServerProcess) -> None:
    for path in ("/ping", "/health", "/health_generate"):
        assert httpx.get(server.url + path, timeout=30).status_code == 200, path
    assert httpx.get(server.url + "/get_server_info").status_code == 401


def test_a_request_id_is_used_and_echoed(http: httpx.Client, client: openai.OpenAI) -> None:
    out = http.post("/generate", json={"text": "hi", "rid": "native-1"}).json()
    assert out["meta_info"]["id"] == "native-1"
    batch = http.post("/generate", json={"text": ["a", "b"], "rid": ["b-1", "b-2"]}).json()
    assert [item["meta_info"]["id"] for item in batch] == ["b-1", "b-2"]
    completion = client.completions.create(
        model=MODEL_NAME, prompt="hi", max_tokens=2, extra_body={"rid": "cmpl-mine"}
    )
    assert completion.id == "cmpl-mine"
    chat = client.chat.completions.create(
        model=MODEL_NAME,
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=2,
        extra_body={"rid": "chat-mine"},
    )
    assert chat.id == "chat-mine"
    stream = client.completions.create(
        model=MODEL_NAME, prompt="hi", max_tokens=2, stream=True, extra_body={"rid": "s-1"}
    )
    assert {chunk.id for chunk in stream} == {"s-1"}
    assert client.completions.create(model=MODEL_NAME, prompt="hi", max_tokens=1).id.startswith(
        "cmpl-"
    )
    bad = http.post("/generate", json={"text": ["a", "b"], "rid": "one"})
    assert (bad.status_code, bad.json()["error"]["param"]) == (400, "rid")


def test_a_request_id_in_flight_is_refused_and_the_first_goes_on(http: httpx.Client) -> None:
    first = Stream(http, {"text": "fox", "sampling_params": LONG, "rid": "dup"})
    again = http.post("/generate", json={"text": "dog", "rid": "dup"})
    assert again.status_code == 400
    error = again.json()["error"]
    assert error["param"] == "rid"
    assert "already in flight" in error["message"]
    assert first.result() == (200, {"type": "length"})
    later = http.post("/generate", json={"text": "dog", "rid": "dup"})  # free again
    assert later.json()["meta_info"]["id"] == "dup"


def test_abort_by_id_ends_the_request_and_frees_its_pages(http: httpx.Client) -> None:
    stream = Stream(http, {"text": "fox", "sampling_params": LONG, "rid": "victim"})
    assert http.post("/abort_request", json={"rid": "victim"}).status_code == 200
    tokens, reason = stream.result()
    assert tokens < 200
    assert reason["type"] == "abort"
    assert idle(http)["released"]
    assert http.post("/abort_request", json={"rid": "gone"}).status_code == 200  # as upstream


def test_samples_are_named_after_the_request_and_aborted_with_it(
    http: httpx.Client, client: openai.OpenAI
) -> None:
    params = {"n": 2, "max_new_tokens": 2}
    out = http.post("/generate", json={"text": "hi", "rid": "pair", "sampling_params": params})
    assert [item["meta_info"]["id"] for item in out.json()] == ["pair-0", "pair-1"]
    results: list[Any] = []
    body = {"text": "fox", "rid": "many", "sampling_params": {**LONG, "n": 2}}
    sender = threading.Thread(target=lambda: results.append(http.post("/generate", json=body)))
    sender.start()
    deadline = time.monotonic() + 10  # one runs, the other waits (--max-running-requests 1)
    while http.get("/get_server_info").json()["waiting"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert http.post("/abort_request", json={"rid": "many"}).status_code == 200
    sender.join(30)
    reasons = [item["meta_info"]["finish_reason"]["type"] for item in results[0].json()]
    assert reasons == ["abort", "abort"]
    assert idle(http)["released"]
    completion = client.completions.create(
        model=MODEL_NAME, prompt=["a", "b"], n=2, max_tokens=1, extra_body={"rid": "two"}
    )
    assert (completion.id, len(completion.choices)) == ("two", 4)


def test_abort_all_ends_running_and_queued_requests(http: httpx.Client) -> None:
    running = Stream(http, {"text": "fox", "sampling_params": LONG})
    queued = threading.Thread(
        target=lambda: results.append(
            http.post("/generate", json={"text": "dog", "sampling_params": LONG}).json()
        )
    )
    results: list[dict[str, object]] = []
    queued.start()
    deadline = time.monotonic() + 10
    while http.get("/get_server_info").json()["waiting"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert http.post("/abort_request", json={"abort_all": True}).status_code == 200
    queued.join(30)
    assert running.result()[1]["type"] == "abort"
    meta = results[0]["meta_info"]
    assert isinstance(meta, dict)
    assert meta["finish_reason"]["type"] == "abort"
    assert meta["completion_tokens"] == 0  # it never ran
    assert idle(http)["released"]
    refused = http.post("/abort_request", json={})
    assert (refused.status_code, refused.json()["error"]["param"]) == (400, "rid")


def test_health_generate_while_busy_answers_at_once(http: httpx.Client) -> None:
    busy = Stream(http, {"text": "fox", "sampling_params": LONG})
    started = time.monotonic()
    assert http.get("/health_generate").status_code == 200  # queued behind, yet healthy
    assert time.monotonic() - started < HEALTH_TIMEOUT
    assert busy.result() == (200, {"type": "length"})
    assert idle(http)["waiting"] == 0  # the check left the queue


def _scheduler(server: ServerProcess) -> psutil.Process:
    (process,) = [c for c in server.children if "spawn_main" in " ".join(c.cmdline())]
    return process


def test_health_generate_is_503_while_the_scheduler_is_stopped(
    server: ServerProcess, http: httpx.Client
) -> None:
    scheduler = _scheduler(server)
    scheduler.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        assert http.get("/health_generate").status_code == 503
        elapsed = time.monotonic() - started
    finally:
        scheduler.send_signal(signal.SIGCONT)
    assert HEALTH_TIMEOUT <= elapsed < HEALTH_TIMEOUT + 1
    assert http.get("/health_generate").status_code == 200
    assert "health check failed" in server.output()
    assert idle(http)["released"]


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/v1/completions", {"prompt": "fox " * 300}, "prompt"),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "fox " * 300}]},
            "messages",
        ),
        ("/generate", {"text": "fox " * 300}, "text"),
        ("/generate", {"input_ids": [5] * 256}, "input_ids"),
    ],
)
def test_a_prompt_over_the_context_says_so_with_both_numbers(
    http: httpx.Client, path: str, body: dict[str, object], param: str
) -> None:
    response = http.post(path, json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == param
    assert "is longer than the model's context length (256 tokens)" in error["message"]
    assert "The input (" in error["message"]


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/generate", {"text": "a", "sampling_params": {"top_p": 2}}, "sampling_params.top_p"),
        ("/generate", {"text": "a", "sampling_params": {"bogus": 1}}, "sampling_params.bogus"),
        ("/generate", {"input_ids": [10**9]}, "input_ids"),
        ("/generate", {"text": "a", "input_ids": [1]}, "text"),
        ("/v1/completions", {"prompt": "a", "top_k": 0}, "top_k"),
        ("/v1/completions", {"prompt": [10**9]}, "prompt"),
        ("/v1/completions", {"prompt": "a", "stop_token_ids": [-1]}, "stop_token_ids"),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "a"}], "rid": ""},
            "rid",
        ),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "a"}], "top_logprobs": 3},
            "top_logprobs",
        ),
        (
            "/v1/chat/completions",
            {
                "messages": [{"role": "user", "content": "a"}],
                "response_format": {"type": "json_schema", "json_schema": {"schema": "{"}},
            },
            "response_format.json_schema.schema",
        ),
        ("/v1/completions", {"prompt": "a", "logprobs": 21}, "logprobs"),
        ("/v1/completions", {"prompt": "a", "min_tokens": -1}, "min_tokens"),
        ("/v1/completions", {"prompt": "a", "regex": "("}, "regex"),
        (
            "/generate",
            {"text": "a", "return_logprob": True, "logprob_start_len": -2},
            "logprob_start_len",
        ),
        (
            "/generate",
            {"text": "a", "sampling_params": {"json_schema": "{"}},
            "sampling_params.json_schema",
        ),
    ],
)
def test_errors_name_the_field_the_client_sent(
    http: httpx.Client, path: str, body: dict[str, object], param: str
) -> None:
    response = http.post(path, json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["param"] == param, error


@pytest.mark.parametrize(
    "neutral",
    [
        {"n": 1},
        {"logprobs": False},
        {"logprobs": None},
        {"logprobs": False, "top_logprobs": 0},
        {"stream_options": {"include_usage": False, "continuous_usage_stats": False}},
    ],
)
def test_chat_accepts_neutral_values(client: openai.OpenAI, neutral: dict[str, object]) -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello"}]
    greedy = {"ignore_eos": True}
    plain = client.chat.completions.create(
        model=MODEL_NAME, messages=messages, max_tokens=6, temperature=0, extra_body=greedy
    )
    if "stream_options" in neutral:
        chunks = client.chat.completions.create(
            model=MODEL_NAME,
            messages=messages,
            max_tokens=6,
            temperature=0,
            stream=True,
            extra_body={**greedy, **neutral},
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        answer = client.chat.completions.create(
            model=MODEL_NAME,
            messages=messages,
            max_tokens=6,
            temperature=0,
            extra_body={**greedy, **neutral},
        )
        text = answer.choices[0].message.content or ""
    assert text == plain.choices[0].message.content


def test_native_and_completions_accept_neutral_values(
    http: httpx.Client, client: openai.OpenAI
) -> None:
    params = {"temperature": 0, "max_new_tokens": 6, "ignore_eos": True}
    plain = http.post("/generate", json={"text": "hello", "sampling_params": params}).json()
    neutral = {"top_logprobs_num": 0, "logprob_start_len": -1, "return_logprob": False}
    same = http.post("/generate", json={"text": "hello", "sampling_params": params, **neutral})
    assert same.json()["output_ids"] == plain["output_ids"]
    base = client.completions.create(
        model=MODEL_NAME,
        prompt="hello",
        max_tokens=6,
        temperature=0,
        extra_body={"ignore_eos": True},
    )
    for value in (None, False):
        again = client.completions.create(
            model=MODEL_NAME,
            prompt="hello",
            max_tokens=6,
            temperature=0,
            n=1,
            extra_body={"ignore_eos": True, "logprobs": value},
        )
        assert again.choices[0].text == base.choices[0].text
