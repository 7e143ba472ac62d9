"""Sampling and output through the offline Engine, checked against transformers computed here.

Penalties, ``logit_bias``, ``min_new_tokens``, stop rules, ``n``, log-probabilities
of the prompt and the output, ``max_new_tokens`` 0 and structured output, each
with an assertion on its effect. One engine (one spawned scheduler) serves
the module.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import torch

from sglang.srt.entrypoints.engine import Engine
from sglang.testing.make_model import make_model
from tests.srt.scheduler_harness import cpu_platform

TOLERANCE = 1e-3
"""fp32 logprobs of the runtime against transformers' (see tests/srt/test_engine.py)."""
REPETITIVE = "fox fox fox fox fox fox fox fox"
LONG = "the quick brown fox jumps over the lazy dog " * 3


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_model(tmp_path_factory.mktemp("sampling") / "llama", arch="llama")


@pytest.fixture(scope="module")
def engine(model: Path) -> Iterator[Engine]:
    with cpu_platform(), Engine(model_path=str(model), max_total_tokens=2048, page_size=4) as e:
        yield e


@pytest.fixture(scope="module")
def hf(model: Path) -> Any:
    from transformers import AutoModelForCausalLM

    reference: Any = AutoModelForCausalLM.from_pretrained(model, dtype=torch.float32)
    return reference.eval()


def hf_logits(hf: Any, ids: list[int]) -> torch.Tensor:
    """transformers' logits at every position of *ids*."""
    with torch.no_grad():
        out: torch.Tensor = hf(torch.tensor([ids])).logits[0].float()
    return out


def gen(engine: Engine, prompt: str, **params: Any) -> dict[str, Any]:
    extra = {k: params.pop(k) for k in list(params) if k in LOGPROB_ARGS}
    result: dict[str, Any] = engine.generate(prompt, params, **extra)
    return result


LOGPROB_ARGS = {"return_logprob", "logprob_start_len", "top_logprobs_num", "token_ids_logprob"}
GREEDY: dict[str, Any] = {"temperature": 0, "max_new_tokens": 8, "ignore_eos": True}


def penalized_reference(
    hf: Any, prompt: list[int], out: list[int], kind: str, value: float
) -> list[tuple[int, float]]:
    """Per step: the greedy token and its logprob under the penalty, from transformers' logits."""
    steps = []
    for k in range(len(out)):
        logits = hf_logits(hf, prompt + out[:k])[-1]
        previous = out[:k]
        if kind == "frequency_penalty":
            for token in previous:
                logits[token] -= value
        elif kind == "presence_penalty":
            for token in set(previous):
                logits[token] -= value
        else:
            for token in set(prompt + previous):
                logits[token] = (
                    logits[token] / value if logits[token] > 0 else logits[token] * value
                )
        row = torch.log_softmax(logits, dim=-1)
        token = int(row.argmax())
        steps.append((token, float(row[token])))
    return steps


@pytest.fixture(scope="module")
def repeating(engine: Engine) -> list[int]:
    """A prompt whose greedy continuation repeats tokens, some of the prompt's too.

    The random test model rarely repeats itself; with its own first greedy
    token put at the start of the prompt it does.
    """
    ids = engine.tokenizer.encode(REPETITIVE)
    first = engine.generate(input_ids=ids, sampling_params=GREEDY)["output_ids"][0]
    prompt = [ids[0], first, *ids[1:]]
    out = engine.generate(input_ids=prompt, sampling_params=GREEDY)["output_ids"]
    assert len(set(out)) < len(out), "the continuation should repeat a token"
    return prompt


@pytest.mark.parametrize(
    ("kind", "value"),
    [("frequency_penalty", 1.5), ("presence_penalty", 2.0), ("repetition_penalty", 2.0)],
)
def test_a_penalty_changes_the_greedy_continuation_as_the_reference_does(
    engine: Engine, hf: Any, repeating: list[int], kind: str, value: float
) -> None:
    plain = engine.generate(input_ids=repeating, sampling_params=GREEDY)
    penalized = engine.generate(
        input_ids=repeating, sampling_params={**GREEDY, kind: value}, return_logprob=True
    )
    assert penalized["output_ids"] != plain["output_ids"]
    expected = penalized_reference(hf, repeating, penalized["output_ids"], kind, value)
    assert penalized["output_ids"] == [t for t, _ in expected]
    got = [lp for lp, _, _ in penalized["meta_info"]["output_token_logprobs"]]
    assert got == pytest.approx([lp for _, lp in expected], abs=TOLERANCE)


def test_logit_bias_of_minus_100_bans_a_token(engine: Engine) -> None:
    plain = gen(engine, REPETITIVE, **GREEDY)
    banned = plain["output_ids"][0]
    biased = gen(engine, REPETITIVE, **GREEDY, logit_bias={str(banned): -100})
    assert banned not in biased["output_ids"]
    forced = gen(engine, REPETITIVE, **GREEDY, logit_bias={"42": 100})
    assert forced["output_ids"] == [42] * GREEDY["max_new_tokens"]


def test_min_new_tokens_holds_off_stop_tokens(engine: Engine) -> None:
    first = gen(engine, REPETITIVE, **GREEDY)["output_ids"][0]
    stopped = gen(engine, REPETITIVE, **GREEDY, stop_token_ids=[first])
    assert stopped["output_ids"] == [first]
    assert stopped["meta_info"]["matched_stop"] == first
    assert stopped["meta_info"]["finish_reason"] == {"type": "stop", "matched": first}
    held = gen(engine, REPETITIVE, **GREEDY, stop_token_ids=[first], min_new_tokens=4)
    assert first not in held["output_ids"][:4]
    assert len(held["output_ids"]) >= 4


def test_stop_regex_cuts_before_the_match_unless_no_stop_trim(engine: Engine) -> None:
    plain = gen(engine, LONG, **{**GREEDY, "max_new_tokens": 16})
    text = plain["text"]
    assert len(text) > 6
    pattern = re.escape(text[3:6])
    cut = gen(engine, LONG, **{**GREEDY, "max_new_tokens": 16}, stop_regex=pattern)
    assert cut["text"] == text[: text.index(text[3:6])]
    assert cut["meta_info"]["matched_stop"] == pattern
    kept = gen(
        engine, LONG, **{**GREEDY, "max_new_tokens": 16}, stop_regex=pattern, no_stop_trim=True
    )
    assert kept["text"].endswith(text[3:6])


def test_skip_special_tokens_false_keeps_special_tokens_in_the_text(engine: Engine) -> None:
    special = engine.tokenizer.tokenizer.token_to_id("<|im_start|>")
    forced = {**GREEDY, "max_new_tokens": 2, "logit_bias": {str(special): 100}}
    assert gen(engine, "Hello", **forced)["text"] == ""
    shown = gen(engine, "Hello", **forced, skip_special_tokens=False)
    assert shown["text"] == "<|im_start|><|im_start|>"
    assert gen(engine, "Hello", **forced, spaces_between_special_tokens=False)["text"] == ""


def test_prompt_logprobs_match_transformers_and_bypass_the_cache(engine: Engine, hf: Any) -> None:
    ids = engine.tokenizer.encode(LONG)
    reference = torch.log_softmax(hf_logits(hf, ids), dim=-1)
    for start in (0, 9):
        for _ in range(2):  # the second run finds the prompt cached, and recomputes
            result = gen(
                engine, LONG, **GREEDY, return_logprob=True, logprob_start_len=start,
                top_logprobs_num=3, token_ids_logprob=[5, 7],
            )  # fmt: skip
            meta = result["meta_info"]
            assert meta["cached_tokens"] <= max(start - 1, 0)
            entries = meta["input_token_logprobs"]
            assert [t for _, t, _ in entries] == ids[start:]
            expected = [
                None if p == 0 else float(reference[p - 1, ids[p]]) for p in ids_range(start, ids)
            ]
            for (got, _, _), want in zip(entries, expected, strict=True):
                assert (got is None) == (want is None)
                if want is not None:
                    assert got == pytest.approx(want, abs=TOLERANCE)
            tops = meta["input_top_logprobs"]
            assert len(tops) == len(ids) - start
            for p, top in zip(ids_range(start, ids), tops, strict=True):
                if p == 0:
                    assert top is None
                    continue
                assert sum(math.exp(lp) for lp, _, _ in top) <= 1 + 1e-6
                assert [t for _, t, _ in top] == reference[p - 1].topk(3).indices.tolist()
            asked = meta["input_token_ids_logprobs"][-1]
            assert [t for _, t, _ in asked] == [5, 7]
            assert asked[0][0] == pytest.approx(float(reference[len(ids) - 2, 5]), abs=TOLERANCE)


def ids_range(start: int, ids: list[int]) -> range:
    return range(start, len(ids))


def test_output_top_logprobs_hold_the_chosen_token_and_sum_below_one(
    engine: Engine, hf: Any
) -> None:
    result = gen(engine, "Hello world", **GREEDY, return_logprob=True, top_logprobs_num=5)
    meta = result["meta_info"]
    prompt = engine.tokenizer.encode("Hello world")
    for k, ((lp, token, _), top) in enumerate(
        zip(meta["output_token_logprobs"], meta["output_top_logprobs"], strict=True)
    ):
        assert top[0][1] == token  # greedy: the chosen token is the most likely
        assert sum(math.exp(v) for v, _, _ in top) <= 1 + 1e-6
        row = torch.log_softmax(hf_logits(hf, prompt + result["output_ids"][:k])[-1], dim=-1)
        assert lp == pytest.approx(float(row[token]), abs=TOLERANCE)


def test_sampled_logprobs_are_of_the_temperature_scaled_distribution(
    engine: Engine, hf: Any
) -> None:
    result = gen(
        engine, "Hello world", temperature=0.5, max_new_tokens=4, seed=3, ignore_eos=True,
        return_logprob=True,
    )  # fmt: skip
    prompt = engine.tokenizer.encode("Hello world")
    for k, (lp, token, _) in enumerate(result["meta_info"]["output_token_logprobs"]):
        logits = hf_logits(hf, prompt + result["output_ids"][:k])[-1]
        assert lp == pytest.approx(float(torch.log_softmax(logits / 0.5, -1)[token]), abs=TOLERANCE)


def test_max_new_tokens_zero_only_prefills(engine: Engine) -> None:
    result = gen(engine, LONG, max_new_tokens=0, return_logprob=True, logprob_start_len=1)
    meta = result["meta_info"]
    assert result["output_ids"] == []
    assert result["text"] == ""
    assert meta["completion_tokens"] == 0
    assert meta["finish_reason"] == {"type": "length"}
    assert len(meta["input_token_logprobs"]) == meta["prompt_tokens"] - 1


def test_n_seeded_samples_equal_requests_with_consecutive_seeds(engine: Engine) -> None:
    params = {"temperature": 1.0, "max_new_tokens": 8, "seed": 11, "ignore_eos": True}
    samples = engine.generate(LONG, {**params, "n": 4})
    assert isinstance(samples, list)
    assert len(samples) == 4
    alone = [engine.generate(LONG, {**params, "seed": 11 + i}) for i in range(4)]
    assert [s["output_ids"] for s in samples] == [a["output_ids"] for a in alone]
    assert len({tuple(s["output_ids"]) for s in samples}) > 1


def test_the_samples_of_one_prompt_share_its_prefill(engine: Engine) -> None:
    engine.flush_cache()
    prompt = LONG + "once more"
    samples = engine.generate(prompt, {"temperature": 1.0, "max_new_tokens": 2, "n": 3})
    cached = sorted(s["meta_info"]["cached_tokens"] for s in samples)
    total = samples[0]["meta_info"]["prompt_tokens"]
    assert cached[0] == 0
    assert cached[1] >= total - 4
    assert cached[2] >= total - 4


def test_several_prompts_are_answered_in_order(engine: Engine) -> None:
    prompts = ["Hello", "the quick brown fox", "a"]
    batch = engine.generate(prompts, GREEDY)
    alone = [engine.generate(p, GREEDY) for p in prompts]
    assert [b["output_ids"] for b in batch] == [a["output_ids"] for a in alone]


def test_seeded_penalized_sampling_streams_as_it_answers(engine: Engine) -> None:
    params = {
        "temperature": 0.9, "max_new_tokens": 12, "seed": 5, "frequency_penalty": 0.7,
        "presence_penalty": 0.3, "repetition_penalty": 1.2, "ignore_eos": True,
    }  # fmt: skip
    plain = engine.generate(REPETITIVE, params)
    streamed = list(engine.generate(REPETITIVE, params, stream=True))
    assert [t for c in streamed for t in c["output_ids"]] == plain["output_ids"]
    assert "".join(c["text"] for c in streamed) == plain["text"]


PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z]{1,6}$"},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


def test_json_schema_outputs_parse_and_validate(engine: Engine) -> None:
    params = {"temperature": 0.8, "max_new_tokens": 96, "json_schema": json.dumps(PERSON)}
    for seed in range(20):
        result = engine.generate("Person:", {**params, "seed": seed})
        assert result["meta_info"]["finish_reason"]["type"] == "stop", result
        jsonschema.validate(json.loads(result["text"]), PERSON)


def test_regex_and_ebnf_outputs_match(engine: Engine) -> None:
    pattern = r"(yes|no), [0-9]{3}!"
    for seed in range(5):
        params = {"temperature": 1.0, "max_new_tokens": 32, "seed": seed}
        text = engine.generate("Answer:", {**params, "regex": pattern})["text"]
        assert re.fullmatch(pattern, text), text
        ebnf = 'root ::= "(" [a-c]+ ")"'
        text = engine.generate("Answer:", {**params, "max_new_tokens": 12, "ebnf": ebnf})["text"]
        assert re.fullmatch(r"\([a-c]+\)", text) or text.startswith("("), text


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"json_schema": "{not json"}, "json_schema"),
        ({"json_schema": json.dumps({"type": "frobnicate"})}, "json_schema"),
        ({"regex": "a(b"}, "regex"),
        ({"ebnf": "root ::= missing"}, "ebnf"),
        ({"regex": "a", "ebnf": 'root ::= "a"'}, "regex and ebnf"),
        ({"frequency_penalty": 3}, "frequency_penalty"),
        ({"repetition_penalty": 0}, "repetition_penalty"),
        ({"min_new_tokens": 9, "max_new_tokens": 4}, "min_new_tokens"),
        ({"logit_bias": {"999999": 1}}, "logit_bias"),
        ({"stop_regex": "("}, "stop_regex"),
        ({"n": 0}, "n"),
    ],
)
def test_bad_values_are_refused_naming_the_field(
    engine: Engine, params: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(field)):
        engine.generate("Hello", params)


def test_bad_logprob_options_are_refused(engine: Engine) -> None:
    with pytest.raises(ValueError, match="logprob_start_len"):
        engine.generate("Hello", GREEDY, return_logprob=True, logprob_start_len=99)
    with pytest.raises(ValueError, match="top_logprobs_num"):
        engine.generate("Hello", GREEDY, return_logprob=True, top_logprobs_num=-1)


def test_prompt_logprobs_of_a_chunked_prefill_match_transformers(engine: Engine, hf: Any) -> None:
    text = "the lazy dog jumps over the quick brown fox"
    while len(engine.tokenizer.encode(text)) <= 140:
        text += " and the quick brown fox jumps over the lazy dog"
    ids = engine.tokenizer.encode(text)
    assert 128 < len(ids) < 250  # longer than one prefill chunk (128 tokens)
    result = engine.generate(
        input_ids=ids, sampling_params={**GREEDY, "max_new_tokens": 2}, return_logprob=True,
        logprob_start_len=3,
    )  # fmt: skip
    got = [lp for lp, _, _ in result["meta_info"]["input_token_logprobs"]]
    reference = torch.log_softmax(hf_logits(hf, ids), dim=-1)
    expected = [float(reference[p - 1, ids[p]]) for p in range(3, len(ids))]
    assert got == pytest.approx(expected, abs=TOLERANCE)


def test_a_complete_grammar_ends_the_request_even_with_ignore_eos(engine: Engine) -> None:
    params = {"temperature": 1.0, "seed": 2, "max_new_tokens": 32, "ignore_eos": True}
    result = engine.generate("Answer:", {**params, "regex": "(yes|no)"})
    assert result["text"] in ("yes", "no")
    assert result["meta_info"]["finish_reason"]["type"] == "stop"
