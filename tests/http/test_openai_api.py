"""The OpenAI-compatible API through the official ``openai`` client, against a real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import openai
import pytest
from openai.types import Completion, CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from sglang.srt.hf_tokenizer import HFTokenizer
from tests.http.conftest import API_KEY, MODEL_NAME
from tests.http.server import ServerProcess

IGNORE_EOS = {"ignore_eos": True}
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "hello", "world"]


def prompt_of(i: int) -> str:
    return " ".join(WORDS[: 1 + i % 9] * (1 + i % 3)) + f" {i}"


def complete(
    client: openai.OpenAI,
    prompt: str | list[int],
    max_tokens: int = 12,
    stop: str | list[str] | None = None,
) -> Completion:
    """A greedy completion that ignores EOS (the test model's EOS would come at random)."""
    return client.completions.create(
        model=MODEL_NAME,
        prompt=prompt,
        max_tokens=max_tokens,
        temperature=0.0,
        stop=stop,
        extra_body=IGNORE_EOS,
    )


def complete_streamed(
    client: openai.OpenAI,
    prompt: str,
    max_tokens: int = 12,
    stop: str | list[str] | None = None,
) -> list[Completion]:
    """The chunks of :func:`complete` streamed, the last holding ``usage``."""
    return list(
        client.completions.create(
            model=MODEL_NAME,
            prompt=prompt,
            max_tokens=max_tokens,
            temperature=0.0,
            stop=stop,
            stream=True,
            stream_options={"include_usage": True},
            extra_body=IGNORE_EOS,
        )
    )


def chat(client: openai.OpenAI, messages: list[ChatCompletionMessageParam]) -> ChatCompletion:
    """A greedy chat completion of 12 tokens that ignores EOS."""
    return client.chat.completions.create(
        model=MODEL_NAME, messages=messages, max_tokens=12, temperature=0.0, extra_body=IGNORE_EOS
    )


def same_counts(got: CompletionUsage | None, want: CompletionUsage | None) -> bool:
    """Equal token counts (``cached_tokens`` differs: the second run reads the first's KV)."""
    assert got is not None
    assert want is not None
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return all(getattr(got, k) == getattr(want, k) for k in keys)


def cached(usage: CompletionUsage | None) -> int:
    """``usage.prompt_tokens_details.cached_tokens``."""
    assert usage is not None
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens is not None
    return usage.prompt_tokens_details.cached_tokens


@pytest.fixture(scope="module")
def client(server: ServerProcess) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY, max_retries=0)


@pytest.fixture(scope="module")
def tokenizer(model: Path) -> HFTokenizer:
    return HFTokenizer.from_pretrained(model)


def test_models_lists_the_served_model_name(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == [MODEL_NAME]


def test_completion_text_usage_and_finish_reason(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    out = complete(client, "Hello world")
    (choice,) = out.choices
    assert choice.finish_reason == "length"
    assert out.usage is not None
    assert out.usage.prompt_tokens == len(tokenizer.encode("Hello world"))
    assert out.usage.completion_tokens == 12
    assert out.usage.total_tokens == out.usage.prompt_tokens + 12
    assert out.model == MODEL_NAME
    again = complete(client, "Hello world")
    assert again.choices[0].text == choice.text


def test_completion_from_token_ids_equals_the_text_prompt(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    ids = tokenizer.encode("Hello world")
    by_ids = complete(client, ids)
    by_text = complete(client, "Hello world")
    assert by_ids.choices[0].text == by_text.choices[0].text


def test_streamed_completion_equals_the_plain_one(client: openai.OpenAI) -> None:
    plain = complete(client, "the quick fox")
    chunks = complete_streamed(client, "the quick fox")
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == plain.choices[0].text
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "length"
    assert set(finishes[:-1]) <= {None}
    assert chunks[-1].choices == []
    assert same_counts(chunks[-1].usage, plain.usage)
    assert len({c.id for c in chunks}) == 1


def test_chat_uses_the_models_chat_template(client: openai.OpenAI, tokenizer: HFTokenizer) -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "Hello"},
    ]
    out = chat(client, messages)
    rendered = tokenizer.apply_chat_template([dict(m) for m in messages])
    assert out.usage is not None
    assert out.usage.prompt_tokens == len(tokenizer.encode(rendered, add_special_tokens=False))
    assert out.choices[0].message.role == "assistant"
    assert out.choices[0].finish_reason == "length"
    # the same tokens through the completions endpoint give the same text
    ids = tokenizer.encode(rendered, add_special_tokens=False)
    raw = complete(client, ids)
    assert out.choices[0].message.content == raw.choices[0].text


def test_streamed_chat_equals_the_plain_one(client: openai.OpenAI) -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": [{"type": "text", "text": "tell me"}]}
    ]
    plain = chat(client, messages)
    chunks = list(
        client.chat.completions.create(
            model=MODEL_NAME,
            messages=messages,
            max_tokens=12,
            temperature=0.0,
            stream=True,
            stream_options={"include_usage": True},
            extra_body=IGNORE_EOS,
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert same_counts(chunks[-1].usage, plain.usage)


def test_a_stop_string_ends_the_answer_before_it(client: openai.OpenAI) -> None:
    full = complete(client, "fox fox", max_tokens=24).choices[0].text
    pairs = (full[i : i + 2] for i in range(2, len(full) - 2))
    stop = next((p for p in pairs if p.isascii() and p.isalnum()), None)
    assert stop is not None, full
    out = complete(client, "fox fox", max_tokens=24, stop=[stop])
    assert out.choices[0].finish_reason == "stop"
    assert out.choices[0].text == full[: full.index(stop)]
    streamed = complete_streamed(client, "fox fox", max_tokens=24, stop=stop)
    assert "".join(c.choices[0].text for c in streamed if c.choices) == out.choices[0].text


def test_a_seed_makes_sampling_repeatable(client: openai.OpenAI) -> None:
    texts = [
        client.completions.create(
            model=MODEL_NAME, prompt="hello", max_tokens=16, temperature=1.0, seed=1234
        )
        .choices[0]
        .text
        for _ in range(2)
    ]
    assert texts[0] == texts[1]


def test_32_concurrent_requests_each_equal_the_request_alone(
    server: ServerProcess, client: openai.OpenAI
) -> None:
    prompts = [prompt_of(i) for i in range(32)]
    alone = [complete(client, p, max_tokens=16).choices[0].text for p in prompts]

    async def one(aclient: openai.AsyncOpenAI, i: int) -> str:
        if i % 2:  # half of them streamed
            stream = await aclient.completions.create(
                model=MODEL_NAME,
                prompt=prompts[i],
                max_tokens=16,
                temperature=0.0,
                stream=True,
                extra_body=IGNORE_EOS,
            )
            return "".join([c.choices[0].text async for c in stream])
        out = await aclient.completions.create(
            model=MODEL_NAME,
            prompt=prompts[i],
            max_tokens=16,
            temperature=0.0,
            extra_body=IGNORE_EOS,
        )
        return out.choices[0].text

    async def together() -> list[str]:
        async with openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=API_KEY) as aclient:
            return await asyncio.gather(*(one(aclient, i) for i in range(32)))

    assert asyncio.run(together()) == alone


def test_n_out_of_range_is_refused_with_the_openai_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model=MODEL_NAME, prompt="hi", n=0)
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["type"] == "invalid_request_error"
    assert error["param"] == "n"


def test_an_unknown_model_is_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.completions.create(model="gpt-5", prompt="hi")
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["code"] == "model_not_found"


def test_a_wrong_api_key_is_401(server: ServerProcess) -> None:
    wrong = openai.OpenAI(base_url=f"{server.url}/v1", api_key="nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        wrong.models.list()
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["code"] == "invalid_api_key"
    for path in ("/v1/models", "/metrics", "/get_server_info"):
        response = httpx.get(server.url + path)
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "authentication_error"
    assert httpx.get(server.url + "/health").status_code == 200


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (b"{not json", None),
        (b'["a list"]', None),
        (b'{"model": "tiny-llama"}', "prompt"),
        (b'{"prompt": "hi", "temperature": 5}', "temperature"),
        (b'{"prompt": "hi", "top_p": 0}', "top_p"),
        (b'{"prompt": "hi", "max_tokens": -1}', "max_tokens"),
        (b'{"prompt": "hi", "frobnicate": 1}', "frobnicate"),
        (b'{"prompt": "hi", "stop": 3}', "stop"),
        (b'{"prompt": []}', "prompt"),
        (b'{"prompt": "hi", "best_of": 2}', "best_of"),
    ],
)
def test_malformed_requests_are_400_in_the_openai_shape(
    server: ServerProcess, body: bytes, param: str | None
) -> None:
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    response = httpx.post(f"{server.url}/v1/completions", content=body, headers=headers)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert error["message"]
    if param is not None:
        assert error["param"] is not None
        assert error["param"].startswith(param)


def test_a_prompt_longer_than_the_context_is_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model=MODEL_NAME, prompt="fox " * 400, max_tokens=4)
    assert isinstance(caught.value.body, dict)
    assert "context" in caught.value.body["message"]


def test_chat_without_messages_is_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL_NAME, messages=[])


def test_bad_requests_do_not_disturb_others(server: ServerProcess, client: openai.OpenAI) -> None:
    expected = complete(client, "dog").choices[0].text
    headers = {"Authorization": f"Bearer {API_KEY}"}

    async def mixed() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60) as http:
            good = {"prompt": "dog", "max_tokens": 12, "temperature": 0, "ignore_eos": True}
            bad: list[dict[str, object]] = [{"prompt": "dog", "n": 0}, {"prompt": 1}]
            calls = [http.post("/v1/completions", json=good)]
            calls += [http.post("/v1/completions", json=b) for b in bad * 4]
            calls += [http.post("/v1/completions", content=b"{")]
            return await asyncio.gather(*calls)

    first, *rest = asyncio.run(mixed())
    assert first.status_code == 200
    assert first.json()["choices"][0]["text"] == expected
    assert {r.status_code for r in rest} == {400}


def test_usage_reports_the_prompt_tokens_read_from_the_prefix_cache(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    prompt = "a shared system prompt " * 8 + "and a question"
    whole_pages = (len(tokenizer.encode(prompt)) - 1) // 4 * 4  # --page-size 4
    assert cached(complete(client, prompt).usage) == 0
    assert cached(complete(client, prompt).usage) == whole_pages
    assert cached(complete_streamed(client, prompt)[-1].usage) == whole_pages
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": prompt}]
    first, second = chat(client, messages), chat(client, messages)
    assert second.usage is not None
    assert cached(first.usage) < cached(second.usage) == (second.usage.prompt_tokens - 1) // 4 * 4
    streamed = list(
        client.chat.completions.create(
            model=MODEL_NAME,
            messages=messages,
            max_tokens=3,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert cached(streamed[-1].usage) == cached(second.usage)
