"""The OpenAI-compatible API through the official ``openai`` client, against a real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import openai
import pytest

from sglang.srt.hf_tokenizer import HFTokenizer
from tests.http.conftest import API_KEY, MODEL_NAME
from tests.http.server import ServerProcess

GREEDY = {"temperature": 0.0, "max_tokens": 12, "extra_body": {"ignore_eos": True}}
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "hello", "world"]


def prompt_of(i: int) -> str:
    return " ".join(WORDS[: 1 + i % 9] * (1 + i % 3)) + f" {i}"


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
    out = client.completions.create(model=MODEL_NAME, prompt="Hello world", **GREEDY)  # type: ignore[arg-type]
    (choice,) = out.choices
    assert choice.finish_reason == "length"
    assert out.usage is not None
    assert out.usage.prompt_tokens == len(tokenizer.encode("Hello world"))
    assert out.usage.completion_tokens == 12
    assert out.usage.total_tokens == out.usage.prompt_tokens + 12
    assert out.model == MODEL_NAME
    again = client.completions.create(model=MODEL_NAME, prompt="Hello world", **GREEDY)  # type: ignore[arg-type]
    assert again.choices[0].text == choice.text


def test_completion_from_token_ids_equals_the_text_prompt(
    client: openai.OpenAI, tokenizer: HFTokenizer
) -> None:
    ids = tokenizer.encode("Hello world")
    by_ids = client.completions.create(model=MODEL_NAME, prompt=ids, **GREEDY)  # type: ignore[arg-type]
    by_text = client.completions.create(model=MODEL_NAME, prompt="Hello world", **GREEDY)  # type: ignore[arg-type]
    assert by_ids.choices[0].text == by_text.choices[0].text


def test_streamed_completion_equals_the_plain_one(client: openai.OpenAI) -> None:
    plain = client.completions.create(model=MODEL_NAME, prompt="the quick fox", **GREEDY)  # type: ignore[arg-type]
    chunks = list(
        client.completions.create(
            model=MODEL_NAME,
            prompt="the quick fox",
            stream=True,
            stream_options={"include_usage": True},
            **GREEDY,  # type: ignore[arg-type]
        )
    )
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == plain.choices[0].text
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "length"
    assert set(finishes[:-1]) <= {None}
    assert chunks[-1].choices == []
    assert chunks[-1].usage == plain.usage
    assert len({c.id for c in chunks}) == 1


def test_chat_uses_the_models_chat_template(client: openai.OpenAI, tokenizer: HFTokenizer) -> None:
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "Hello"}]
    out = client.chat.completions.create(model=MODEL_NAME, messages=messages, **GREEDY)  # type: ignore[arg-type]
    rendered = tokenizer.apply_chat_template(messages)
    assert out.usage is not None
    assert out.usage.prompt_tokens == len(tokenizer.encode(rendered, add_special_tokens=False))
    assert out.choices[0].message.role == "assistant"
    assert out.choices[0].finish_reason == "length"
    # the same tokens through the completions endpoint give the same text
    ids = tokenizer.encode(rendered, add_special_tokens=False)
    raw = client.completions.create(model=MODEL_NAME, prompt=ids, **GREEDY)  # type: ignore[arg-type]
    assert out.choices[0].message.content == raw.choices[0].text


def test_streamed_chat_equals_the_plain_one(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "tell me"}]}]
    plain = client.chat.completions.create(model=MODEL_NAME, messages=messages, **GREEDY)  # type: ignore[arg-type]
    chunks = list(
        client.chat.completions.create(
            model=MODEL_NAME,
            messages=messages,  # type: ignore[arg-type]
            stream=True,
            stream_options={"include_usage": True},
            **GREEDY,  # type: ignore[arg-type]
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == plain.choices[0].message.content
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert chunks[-1].usage == plain.usage


def test_a_stop_string_ends_the_answer_before_it(client: openai.OpenAI) -> None:
    long = {**GREEDY, "max_tokens": 24}
    full = client.completions.create(model=MODEL_NAME, prompt="fox fox", **long).choices[0].text  # type: ignore[arg-type]
    pairs = (full[i : i + 2] for i in range(2, len(full) - 2))
    stop = next((p for p in pairs if p.isascii() and p.isalnum()), None)
    assert stop is not None, full
    out = client.completions.create(model=MODEL_NAME, prompt="fox fox", stop=[stop], **long)  # type: ignore[arg-type]
    assert out.choices[0].finish_reason == "stop"
    assert out.choices[0].text == full[: full.index(stop)]
    streamed = client.completions.create(
        model=MODEL_NAME,
        prompt="fox fox",
        stop=stop,
        stream=True,
        **long,  # type: ignore[arg-type]
    )
    assert "".join(c.choices[0].text for c in streamed) == out.choices[0].text


def test_a_seed_makes_sampling_repeatable(client: openai.OpenAI) -> None:
    kwargs = {"model": MODEL_NAME, "prompt": "hello", "max_tokens": 16, "temperature": 1.0}
    first = client.completions.create(seed=1234, **kwargs)  # type: ignore[call-overload]
    second = client.completions.create(seed=1234, **kwargs)  # type: ignore[call-overload]
    assert first.choices[0].text == second.choices[0].text


def test_32_concurrent_requests_each_equal_the_request_alone(server: ServerProcess) -> None:
    prompts = [prompt_of(i) for i in range(32)]
    kwargs = {"model": MODEL_NAME, "max_tokens": 16, "temperature": 0.0}
    kwargs["extra_body"] = {"ignore_eos": True}
    alone = [
        openai.OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY)
        .completions.create(prompt=p, **kwargs)  # type: ignore[call-overload]
        .choices[0]
        .text
        for p in prompts
    ]

    async def together() -> list[str]:
        async with openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key=API_KEY) as aclient:

            async def one(i: int) -> str:
                if i % 2:  # half of them streamed
                    stream = await aclient.completions.create(
                        prompt=prompts[i],
                        stream=True,
                        **kwargs,  # type: ignore[call-overload]
                    )
                    return "".join([c.choices[0].text async for c in stream])
                out = await aclient.completions.create(prompt=prompts[i], **kwargs)  # type: ignore[call-overload]
                return str(out.choices[0].text)

            return await asyncio.gather(*(one(i) for i in range(32)))

    assert asyncio.run(together()) == alone


def test_n_other_than_one_is_refused_with_the_openai_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model=MODEL_NAME, prompt="hi", n=2)
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["type"] == "invalid_request_error"
    assert error["param"] == "n"
    assert "n=1" in error["message"]


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
        (b'{"prompt": ["a", "b"]}', "prompt"),
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
    expected = client.completions.create(model=MODEL_NAME, prompt="dog", **GREEDY).choices[0].text  # type: ignore[arg-type]
    headers = {"Authorization": f"Bearer {API_KEY}"}

    async def mixed() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60) as http:
            good = {"prompt": "dog", "max_tokens": 12, "temperature": 0, "ignore_eos": True}
            bad: list[dict[str, object]] = [{"prompt": "dog", "n": 3}, {"prompt": 1}]
            calls = [http.post("/v1/completions", json=good)]
            calls += [http.post("/v1/completions", json=b) for b in bad * 4]
            calls += [http.post("/v1/completions", content=b"{")]
            return await asyncio.gather(*calls)

    first, *rest = asyncio.run(mixed())
    assert first.status_code == 200
    assert first.json()["choices"][0]["text"] == expected
    assert {r.status_code for r in rest} == {400}
