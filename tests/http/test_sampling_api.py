"""Sampling and output through the official ``openai`` client and httpx, against a real server.

``n``, several prompts, logprobs (completions with ``echo``, chat with
``top_logprobs``, native ``meta_info``), penalties, ``logit_bias``,
``min_tokens``, ``matched_stop``, structured output (``response_format``,
``regex``), the chat extensions and the neutral values, each with an
assertion on its effect.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import openai
import pytest

from sglang.srt.hf_tokenizer import HFTokenizer
from sglang.testing.make_model import make_model
from sglang.testing.tokenizer_files import SIMPLE_TEMPLATE
from tests.http.conftest import API_KEY, MODEL_NAME
from tests.http.server import ServerProcess

PERSONA_TEMPLATE = (
    "{% if persona %}{{ 'persona: ' + persona + '\\n' }}{% endif %}" + SIMPLE_TEMPLATE
)
"""The test model's template, plus a ``persona`` variable for ``chat_template_kwargs``."""
IGNORE = {"ignore_eos": True}
PROMPT = "the quick brown fox jumps over the lazy dog and the quick brown cat"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = make_model(tmp_path_factory.mktemp("http-sampling") / "llama", arch="llama")
    (path / "chat_template.jinja").write_text(PERSONA_TEMPLATE, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY, max_retries=0)


@pytest.fixture(scope="module")
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=120) as session:
        yield session


@pytest.fixture(scope="module")
def tokenizer(model: Path) -> HFTokenizer:
    return HFTokenizer.from_pretrained(model)


def sampled(client: openai.OpenAI, **extra: Any) -> Any:
    return client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, max_tokens=8, temperature=1.0, extra_body=IGNORE, **extra
    )


# -- n and several prompts --------------------------------------------------------------------


def test_n_seeded_samples_equal_requests_with_consecutive_seeds(client: openai.OpenAI) -> None:
    together = sampled(client, n=4, seed=21)
    assert [c.index for c in together.choices] == [0, 1, 2, 3]
    alone = [sampled(client, seed=21 + i).choices[0].text for i in range(4)]
    assert [c.text for c in together.choices] == alone
    streamed = ["", "", "", ""]
    for chunk in sampled(client, n=4, seed=21, stream=True):
        for choice in chunk.choices:
            streamed[choice.index] += choice.text
    assert streamed == alone
    assert together.usage is not None
    assert together.usage.completion_tokens == 32
    assert together.usage.prompt_tokens == sampled(client, seed=1).usage.prompt_tokens


def test_several_prompts_are_answered_in_order_with_n_each(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    prompts = ["Hello", "the lazy dog", "a"]
    greedy: Any = {"max_tokens": 6, "temperature": 0.0, "extra_body": IGNORE}
    alone = [client.completions.create(model=MODEL_NAME, prompt=p, **greedy) for p in prompts]
    texts = [a.choices[0].text for a in alone]
    batch = client.completions.create(model=MODEL_NAME, prompt=prompts, n=2, **greedy)
    assert [c.text for c in batch.choices] == [t for t in texts for _ in range(2)]
    ids = [tokenizer.encode(p) for p in prompts]
    by_ids = client.completions.create(model=MODEL_NAME, prompt=ids, **greedy)
    assert [c.text for c in by_ids.choices] == texts
    assert by_ids.usage is not None
    assert by_ids.usage.prompt_tokens == sum(len(i) for i in ids)


def test_chat_n_streamed_equals_plain(client: openai.OpenAI) -> None:
    messages: Any = [{"role": "user", "content": "Hi there"}]
    args: Any = {"max_tokens": 6, "temperature": 1.0, "seed": 3, "n": 2, "extra_body": IGNORE}
    plain = client.chat.completions.create(model=MODEL_NAME, messages=messages, **args)
    texts = ["", ""]
    for chunk in client.chat.completions.create(
        model=MODEL_NAME, messages=messages, stream=True, **args
    ):
        for choice in chunk.choices:
            texts[choice.index] += choice.delta.content or ""
    assert texts == [c.message.content for c in plain.choices]


def test_generate_takes_a_list_of_prompts_with_n(http: httpx.Client) -> None:
    params = {"temperature": 1.0, "max_new_tokens": 5, "seed": 8, "n": 2, "ignore_eos": True}
    batch = http.post("/generate", json={"text": ["Hello", "dog"], "sampling_params": params})
    results = batch.json()
    assert len(results) == 4
    single = http.post("/generate", json={"text": "dog", "sampling_params": {**params, "n": 1}})
    assert results[2]["output_ids"] == single.json()["output_ids"]
    body = {"text": ["Hello", "dog"], "sampling_params": params, "stream": True}
    ids: dict[int, list[int]] = {}
    with http.stream("POST", "/generate", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                ids.setdefault(chunk["index"], []).extend(chunk["output_ids"])
    assert [ids[i] for i in range(4)] == [r["output_ids"] for r in results]


# -- logprobs ---------------------------------------------------------------------------------


def test_completion_logprobs_with_echo_cover_the_prompt(
    client: openai.OpenAI, http: httpx.Client, tokenizer: HFTokenizer
) -> None:
    out = client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, max_tokens=5, temperature=0.0, logprobs=3, echo=True,
        extra_body=IGNORE,
    )  # fmt: skip
    choice = out.choices[0]
    assert choice.text.startswith(PROMPT)
    logprobs = choice.logprobs
    assert logprobs is not None
    assert logprobs.tokens is not None
    assert logprobs.token_logprobs is not None
    assert logprobs.top_logprobs is not None
    assert logprobs.text_offset is not None
    prompt_len = len(tokenizer.encode(PROMPT))
    assert len(logprobs.tokens) == prompt_len + 5
    first: list[Any] = [logprobs.token_logprobs[0], logprobs.top_logprobs[0]]
    assert first == [None, None]  # the first prompt token has no context
    assert logprobs.text_offset == sorted(logprobs.text_offset)
    for top in logprobs.top_logprobs[1:]:
        assert top is not None
        assert 1 <= len(top) <= 3
        assert sum(math.exp(v) for v in top.values()) <= 1 + 1e-6
    native = http.post(
        "/generate",
        json={"text": PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 5,
              "ignore_eos": True}, "return_logprob": True, "logprob_start_len": 0},
    ).json()["meta_info"]  # fmt: skip
    expected = [lp for lp, _, _ in native["input_token_logprobs"] + native["output_token_logprobs"]]
    assert logprobs.token_logprobs[1:] == pytest.approx(expected[1:], abs=1e-5)


def test_max_tokens_zero_with_echo_scores_the_prompt(client: openai.OpenAI) -> None:
    out = client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, max_tokens=0, logprobs=0, echo=True
    )
    choice = out.choices[0]
    assert choice.text == PROMPT
    assert choice.finish_reason == "length"
    assert out.usage is not None
    assert out.usage.completion_tokens == 0
    assert choice.logprobs is not None
    assert choice.logprobs.token_logprobs is not None
    assert len(choice.logprobs.token_logprobs) == out.usage.prompt_tokens


def test_chat_logprobs_with_top_logprobs_streamed_and_plain(client: openai.OpenAI) -> None:
    messages: Any = [{"role": "user", "content": "Say something"}]
    args: Any = {"max_tokens": 6, "temperature": 0.0, "logprobs": True, "top_logprobs": 2}
    plain = client.chat.completions.create(model=MODEL_NAME, messages=messages, **args)
    content = plain.choices[0].logprobs
    assert content is not None
    assert content.content is not None
    assert plain.usage is not None
    assert len(content.content) == plain.usage.completion_tokens
    for item in content.content:
        assert len(item.top_logprobs) == 2
        assert item.top_logprobs[0].logprob >= item.top_logprobs[1].logprob
        assert item.logprob == pytest.approx(item.top_logprobs[0].logprob)  # greedy
        assert item.bytes == list(item.token.encode())
    streamed = []
    for chunk in client.chat.completions.create(
        model=MODEL_NAME, messages=messages, stream=True, **args
    ):
        for choice in chunk.choices:
            if choice.logprobs is not None and choice.logprobs.content:
                streamed.extend(choice.logprobs.content)
    assert [(i.token, i.logprob) for i in streamed] == [
        (i.token, i.logprob) for i in content.content
    ]


def test_neutral_values_are_accepted_everywhere(client: openai.OpenAI, http: httpx.Client) -> None:
    neutral: Any = {
        "n": 1, "presence_penalty": 0, "frequency_penalty": 0, "logit_bias": {},
        "stream_options": {"include_usage": False, "continuous_usage_stats": False},
    }  # fmt: skip
    messages: Any = [{"role": "user", "content": "Hi"}]
    out = client.chat.completions.create(
        model=MODEL_NAME, messages=messages, max_tokens=2, logprobs=False, extra_body=neutral,
    )  # fmt: skip
    assert out.choices[0].logprobs is None
    out2 = client.completions.create(
        model=MODEL_NAME, prompt="Hi", max_tokens=2, logprobs=None, extra_body={"n": 1}
    )
    assert out2.choices[0].logprobs is None
    body = {
        "text": "Hi", "sampling_params": {"max_new_tokens": 2, "n": 1}, "return_logprob": False,
        "top_logprobs_num": 0, "logprob_start_len": -1,
    }  # fmt: skip
    native = http.post("/generate", json=body)
    assert native.status_code == 200, native.text
    assert "output_token_logprobs" not in native.json()["meta_info"]


def test_continuous_usage_stats_put_usage_in_every_chunk(client: openai.OpenAI) -> None:
    chunks = list(
        client.completions.create(
            model=MODEL_NAME, prompt="Hello", max_tokens=4, temperature=0.0, stream=True,
            stream_options={"include_usage": True},
            extra_body={**IGNORE, "stream_options": {"include_usage": True,
                        "continuous_usage_stats": True}},
        )
    )  # fmt: skip
    counts = [c.usage.completion_tokens for c in chunks if c.choices and c.usage is not None]
    assert counts
    assert counts == sorted(counts)
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 4


# -- penalties, bias, stops ----------------------------------------------------------------------


def test_penalties_and_bias_change_the_greedy_answer(client: openai.OpenAI) -> None:
    greedy: Any = {"max_tokens": 8, "temperature": 0.0, "extra_body": IGNORE}
    plain = client.completions.create(model=MODEL_NAME, prompt=PROMPT, **greedy)
    boosted: Any = {**greedy, "extra_body": {**IGNORE, "logit_bias": {"42": 10}}}
    forced = client.completions.create(model=MODEL_NAME, prompt=PROMPT, **boosted)
    assert forced.choices[0].text == "G" * 8  # token 42 is "G"
    penalized = client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, frequency_penalty=2.0, **boosted
    )
    assert penalized.choices[0].text.startswith("G")
    assert penalized.choices[0].text != forced.choices[0].text
    first = first_token_id(client)
    banned = client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, logit_bias={str(first): -100}, **greedy
    )
    assert banned.choices[0].text != plain.choices[0].text


def first_token_id(client: openai.OpenAI) -> int:
    """The greedy first token after :data:`PROMPT` (through ``/generate``, which has ids)."""
    native = httpx.post(
        str(client.base_url).replace("/v1/", "/generate"),
        json={"text": PROMPT, "sampling_params": {"temperature": 0, "max_new_tokens": 1}},
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    ids: list[int] = native.json()["output_ids"]
    return ids[0]


def test_matched_stop_and_min_tokens(client: openai.OpenAI, http: httpx.Client) -> None:
    first = first_token_id(client)
    body: Any = {"prompt": PROMPT, "max_tokens": 8, "temperature": 0, "stop_token_ids": [first]}
    stopped = http.post("/v1/completions", json=body).json()["choices"][0]
    assert stopped["finish_reason"] == "stop"
    assert stopped["matched_stop"] == first
    held = http.post("/v1/completions", json={**body, "min_tokens": 3, **IGNORE}).json()
    assert held["usage"]["completion_tokens"] >= 3
    text = http.post("/v1/completions", json={**body, "stop_token_ids": None, **IGNORE}).json()
    word = text["choices"][0]["text"][2:4]
    cut = http.post("/v1/completions", json={**body, "stop_token_ids": None, "stop": [word]})
    assert cut.json()["choices"][0]["matched_stop"] == word


# -- structured output -------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "pattern": "^[a-z]{1,8}$"},
        "size": {"type": "integer", "minimum": 1, "maximum": 999},
    },
    "required": ["city", "size"],
    "additionalProperties": False,
}


def test_response_format_json_schema_parses_and_validates(client: openai.OpenAI) -> None:
    response_format: Any = {
        "type": "json_schema", "json_schema": {"name": "place", "schema": SCHEMA, "strict": True},
    }  # fmt: skip
    messages: Any = [{"role": "user", "content": "Describe a place"}]
    for seed in range(20):
        out = client.chat.completions.create(
            model=MODEL_NAME, messages=messages, max_tokens=96, temperature=0.8, seed=seed,
            response_format=response_format,
        )  # fmt: skip
        assert out.choices[0].finish_reason == "stop"
        jsonschema.validate(json.loads(out.choices[0].message.content or ""), SCHEMA)


def test_json_object_and_regex(client: openai.OpenAI) -> None:
    out = client.completions.create(
        model=MODEL_NAME, prompt="JSON:", max_tokens=48, temperature=0.7, seed=4,
        extra_body={"response_format": {"type": "json_object"}, "regex": None},
    )  # fmt: skip
    if out.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(out.choices[0].text, strict=False), dict)
    assert out.choices[0].text.startswith("{")
    pattern = r"(red|blue) [0-9]{2}"
    for seed in range(3):
        text = client.completions.create(
            model=MODEL_NAME, prompt="Color:", max_tokens=16, temperature=1.0, seed=seed,
            extra_body={"regex": pattern},
        ).choices[0].text  # fmt: skip
        assert re.fullmatch(pattern, text), text


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"response_format": {"type": "json_schema", "json_schema": {"schema": {"type": 3}}}},
         "json_schema"),
        ({"regex": "a("}, "regex"),
        ({"ebnf": "root ::= nothing"}, "ebnf"),
        ({"repetition_penalty": 7}, "repetition_penalty"),
    ],
)  # fmt: skip
def test_an_invalid_grammar_or_value_is_a_400_naming_it(
    client: openai.OpenAI, extra: dict[str, Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model=MODEL_NAME, prompt="x", max_tokens=4, extra_body=extra)
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["param"] == param
    assert param in body["message"]


# -- chat extensions ------------------------------------------------------------------------------


def test_chat_template_kwargs_continue_final_message_and_prompt_ids(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    messages: Any = [
        {"role": "user", "content": "Name a fox"},
        {"role": "assistant", "content": "The fox is called"},
    ]
    out = client.chat.completions.create(
        model=MODEL_NAME, messages=messages, max_tokens=2, temperature=0.0,
        extra_body={"continue_final_message": True, "return_prompt_token_ids": True,
                    "chat_template_kwargs": {"persona": "a poet"}},
    )  # fmt: skip
    ids = out.choices[0].model_extra["prompt_token_ids"]  # type: ignore[index]
    text = tokenizer.decode(ids, skip_special_tokens=False)
    assert text.startswith("persona: a poet\n")
    assert text.endswith("assistant: The fox is called")
    assert out.usage is not None
    assert len(ids) == out.usage.prompt_tokens
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model=MODEL_NAME, messages=messages, stream=True,
            extra_body={"return_prompt_token_ids": True},
        )  # fmt: skip
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["param"] == "return_prompt_token_ids"
