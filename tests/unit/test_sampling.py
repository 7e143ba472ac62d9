"""Sampling parameters, the sampler and the finish rules, with a real BPE tokenizer."""

from __future__ import annotations

import math

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from sglang.srt.sampling import FinishReason, FinishType, OutputTracker, SamplingParams
from sglang.srt.sampling.sampler import Sampler, new_generator

TEXT = [
    "Hello world! The quick brown fox jumps over the lazy dog.",
    "Grüße aus München — naïve café, 東京 and emoji 🙂 too.",
    "Stop here. END of text; the end is near. Hello again!",
] * 20


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(TEXT, trainer)
    return tok


# -- SamplingParams ------------------------------------------------------------------------


def test_defaults_and_stop_as_one_string() -> None:
    params = SamplingParams.from_dict({"stop": "END", "temperature": 0})
    assert params.stop == ("END",)
    assert params.greedy
    assert SamplingParams.from_dict(None) == SamplingParams()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"max_new_tokens": -1}, "max_new_tokens"),
        ({"max_new_tokens": 1.5}, "max_new_tokens"),
        ({"temperature": -0.1}, "temperature"),
        ({"top_p": 1.5}, "top_p"),
        ({"top_p": 0}, "top_p"),
        ({"top_k": 0}, "top_k"),
        ({"min_p": 2}, "min_p"),
        ({"stop": [""]}, "stop"),
        ({"stop": 3}, "stop"),
        ({"stop_token_ids": [-1]}, "stop_token_ids"),
        ({"stop_token_ids": 5}, "stop_token_ids"),
        ({"ignore_eos": "yes"}, "ignore_eos"),
        ({"seed": "1"}, "seed"),
        ({"temprature": 0.5}, "temprature"),
    ],
)
def test_bad_parameters_name_the_field(params: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        SamplingParams.from_dict(params)


def test_the_prompt_must_leave_room() -> None:
    too_long = r"The input \(8 tokens\) is longer than the model's context length \(8 tokens\)"
    with pytest.raises(ValueError, match=too_long):
        SamplingParams().check_prompt(8, 8)
    with pytest.raises(ValueError, match="empty"):
        SamplingParams().check_prompt(0, 8)
    SamplingParams().check_prompt(7, 8)


# -- the sampler ------------------------------------------------------------------------------


def test_greedy_rows_take_the_argmax_and_report_raw_logprobs() -> None:
    logits = torch.tensor([[0.0, 3.0, 1.0], [2.0, 0.0, 1.0]])
    params = [SamplingParams(temperature=0), SamplingParams(top_k=1)]
    tokens, logprobs = Sampler()(logits, params, [None, None])
    assert tokens.tolist() == [1, 0]
    expected = torch.log_softmax(logits, dim=-1)
    assert logprobs.tolist() == pytest.approx([expected[0, 1].item(), expected[1, 0].item()])


def test_a_seed_makes_sampling_reproducible_whatever_the_batch() -> None:
    torch.manual_seed(0)
    logits = torch.randn(4, 50)
    seeded = SamplingParams(temperature=1.0, seed=1234)
    device = torch.device("cpu")

    def draw(rows: list[int]) -> list[int]:
        gens = [new_generator(seeded, device) for _ in rows]
        out = []
        for _ in range(5):
            tokens, _ = Sampler()(logits[rows], [seeded] * len(rows), gens)
            out.append(int(tokens[0]))
        return out

    assert draw([2]) == draw([2, 0, 1])
    assert new_generator(SamplingParams(), device) is None


def test_filters_leave_only_allowed_tokens() -> None:
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    gen = torch.Generator().manual_seed(7)
    cases = {
        "top_k": (SamplingParams(top_k=2), {0, 1}),
        "top_p": (SamplingParams(top_p=0.7), {0, 1}),
        "min_p": (SamplingParams(min_p=0.5), {0, 1}),
    }
    for name, (params, allowed) in cases.items():
        seen = {int(Sampler()(logits, [params], [gen])[0][0]) for _ in range(200)}
        assert seen == allowed, name


def test_sampling_follows_the_distribution() -> None:
    probs = torch.tensor([0.6, 0.3, 0.1])
    logits = torch.log(probs).unsqueeze(0)
    gen = torch.Generator().manual_seed(3)
    counts = [0, 0, 0]
    draws = 3000
    for _ in range(draws):
        counts[int(Sampler()(logits, [SamplingParams()], [gen])[0][0])] += 1
    for count, p in zip(counts, probs.tolist(), strict=True):
        sigma = math.sqrt(draws * p * (1 - p))
        assert abs(count - draws * p) < 5 * sigma


# -- finish rules and incremental text ----------------------------------------------------------


def track(
    tokenizer: Tokenizer, text: str, *, eos: tuple[int, ...] = (), **params: object
) -> tuple[OutputTracker, list[str]]:
    tracker = OutputTracker(
        tokenizer,
        SamplingParams.from_dict(params),
        eos,
        prompt_tokens=1,
        context_length=10_000,
    )
    chunks = []
    for token in tokenizer.encode(text).ids:
        chunks.append(tracker.append(token))
        if tracker.finished:
            break
    return tracker, chunks


def test_chunks_add_up_to_the_text_even_across_multibyte_characters(tokenizer: Tokenizer) -> None:
    text = "Grüße aus München — 東京 🙂 café"
    tracker, chunks = track(tokenizer, text, max_new_tokens=10_000)
    assert "".join(chunks) == tracker.text == text
    assert all("\ufffd" not in chunk for chunk in chunks)


def test_max_new_tokens_finishes_with_length(tokenizer: Tokenizer) -> None:
    tracker, _ = track(tokenizer, "Hello world! The quick brown fox", max_new_tokens=3)
    assert len(tracker.output_ids) == 3
    assert tracker.finish == FinishReason(FinishType.LENGTH)
    assert FinishReason(FinishType.LENGTH).to_dict() == {"type": "length"}


def test_a_stop_string_cuts_the_text_and_is_never_streamed(tokenizer: Tokenizer) -> None:
    tracker, chunks = track(tokenizer, "Stop here. END of text", stop=["END", "zzz"])
    assert tracker.text == "Stop here. "
    assert "".join(chunks) == "Stop here. "
    assert tracker.finish == FinishReason(FinishType.STOP, "END")
    assert FinishReason(FinishType.STOP, "END").to_dict() == {"type": "stop", "matched": "END"}


def test_the_earliest_stop_string_wins(tokenizer: Tokenizer) -> None:
    tracker, _ = track(tokenizer, "the end is near. Hello again", stop=["Hello", "end"])
    assert tracker.text == "the "
    assert tracker.finish is not None
    assert tracker.finish.matched == "end"


def test_eos_and_stop_tokens_end_the_request_and_stay_in_the_ids(tokenizer: Tokenizer) -> None:
    eos_id = tokenizer.token_to_id("</s>")
    assert eos_id is not None
    eos: int = eos_id
    ids = [*tokenizer.encode("Hello world").ids, eos, *tokenizer.encode(" more").ids]
    tracker = OutputTracker(tokenizer, SamplingParams(), [eos], prompt_tokens=1, context_length=100)
    text = "".join(tracker.append(t) for t in ids[: ids.index(eos) + 1])
    assert tracker.finish == FinishReason(FinishType.STOP, eos)
    assert tracker.output_ids[-1] == eos
    assert text == tracker.text == "Hello world"
    with pytest.raises(RuntimeError, match="already finished"):
        tracker.append(ids[0])

    ignoring = OutputTracker(
        tokenizer,
        SamplingParams(ignore_eos=True, stop_token_ids=(ids[0],)),
        [eos],
        prompt_tokens=1,
        context_length=100,
    )
    for token in ids[1 : ids.index(eos) + 1]:
        ignoring.append(token)
    assert not ignoring.finished  # EOS ignored
    ignoring.append(ids[0])
    assert ignoring.finish == FinishReason(FinishType.STOP, ids[0])


def test_the_context_length_bounds_the_output(tokenizer: Tokenizer) -> None:
    tracker = OutputTracker(
        tokenizer, SamplingParams(max_new_tokens=100), [], prompt_tokens=6, context_length=8
    )
    for token in tokenizer.encode("Hello world! The quick").ids[:2]:
        tracker.append(token)
    assert tracker.finish == FinishReason(FinishType.LENGTH)


def test_abort() -> None:
    tracker = OutputTracker(
        Tokenizer(models.BPE()), SamplingParams(), [], prompt_tokens=1, context_length=10
    )
    tracker.abort("client disconnected")
    assert tracker.finish is not None
    assert tracker.finish.to_dict() == {"type": "abort", "message": "client disconnected"}


def test_text_that_may_start_a_stop_string_is_held_back(tokenizer: Tokenizer) -> None:
    # "e. E" spans several tokens: "...her" must not be streamed past "her"
    tracker, chunks = track(tokenizer, "Stop here. END of text", stop=["e. E"])
    assert tracker.text == "Stop her"
    assert "".join(chunks) == "Stop her"
    assert len([c for c in chunks if c]) >= 2  # streamed incrementally, not all at the end
