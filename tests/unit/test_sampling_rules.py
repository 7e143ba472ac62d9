"""Penalties, the grammar mask, prompt logprobs and the newer stop rules, without a server."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from sglang.srt.constrained import apply_token_bitmask
from sglang.srt.sampling import FinishReason, FinishType, OutputTracker, SamplingParams
from sglang.srt.sampling.logprobs import InputLogprobCollector, position_details
from sglang.srt.sampling.penaltylib import Penalizer
from sglang.srt.sampling.sampler import Sampler

TEXT = ["Hello world! The quick brown fox jumps over the lazy dog. Order 66 now."] * 20


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(
        vocab_size=280, special_tokens=["<s>", "</s>"], initial_alphabet=alphabet
    )
    tok.train_from_iterator(TEXT, trainer)
    return tok


def run(
    tokenizer: Tokenizer, text: str, eos: tuple[int, ...] = (), **params: object
) -> tuple[OutputTracker, list[str]]:
    tracker = OutputTracker(
        tokenizer, SamplingParams.from_dict(params), eos, prompt_tokens=1, context_length=10_000
    )
    chunks = []
    for token in tokenizer.encode(text).ids:
        chunks.append(tracker.append(token))
        if tracker.finished:
            break
    return tracker, chunks


def test_stop_regex_ends_before_the_match_and_never_streams_it(tokenizer: Tokenizer) -> None:
    tracker, chunks = run(tokenizer, "The quick brown fox. Order 66 now.", stop_regex=r"[0-9]+ now")
    assert tracker.text == "The quick brown fox. Order "
    assert "".join(chunks) == tracker.text
    assert tracker.finish == FinishReason(FinishType.STOP, r"[0-9]+ now")


def test_no_stop_trim_keeps_the_stop_string_and_the_stop_token(tokenizer: Tokenizer) -> None:
    tracker, _ = run(tokenizer, "Hello world! The quick", stop=["world"], no_stop_trim=True)
    assert tracker.text == "Hello world"
    fox = tokenizer.encode(" fox").ids[-1]
    kept = OutputTracker(
        tokenizer, SamplingParams(stop_token_ids=(fox,), no_stop_trim=True), [], prompt_tokens=1,
        context_length=100,
    )  # fmt: skip
    text = "".join(kept.append(t) for t in tokenizer.encode("The quick brown fox").ids)
    assert text == "The quick brown fox"
    assert kept.finish == FinishReason(FinishType.STOP, fox)


def test_min_new_tokens_holds_off_every_stop_rule(tokenizer: Tokenizer) -> None:
    ids = tokenizer.encode("Hello world! The quick").ids
    tracker, _ = run(tokenizer, "Hello world! The quick", stop=["Hello"], min_new_tokens=len(ids))
    assert tracker.finish is None
    assert tracker.text == "Hello world! The quick"


def test_skip_special_tokens_false_shows_them(tokenizer: Tokenizer) -> None:
    eos = tokenizer.token_to_id("</s>")
    assert isinstance(eos, int)
    for skip, shown in ((True, "Hello"), (False, "Hello</s>")):
        tracker = OutputTracker(
            tokenizer, SamplingParams(skip_special_tokens=skip), [], prompt_tokens=1,
            context_length=100,
        )  # fmt: skip
        text = "".join(tracker.append(t) for t in [*tokenizer.encode("Hello").ids, eos])
        assert text == shown


def test_new_parameters_check_their_ranges() -> None:
    params = SamplingParams.from_dict(
        {"logit_bias": {"5": -100}, "stop_regex": "a+", "sampling_seed": 3, "top_k": None}
    )
    assert params.logit_bias == ((5, -100.0),)
    assert params.stop_regex == ("a+",)
    assert params.seed == 3
    assert params.top_k == -1
    assert params.penalized
    assert SamplingParams.from_dict({"json_schema": {"type": "object"}}).grammar == (
        "json_schema",
        '{"type": "object"}',
    )
    with pytest.raises(ValueError, match="logit_bias keys must be in"):
        params.check_vocab(4)


def test_penalizer_follows_upstreams_order_and_formulas() -> None:
    params = SamplingParams(
        frequency_penalty=0.5, presence_penalty=0.25, repetition_penalty=2.0,
        logit_bias=((3, 1.0),), min_new_tokens=1,
    )  # fmt: skip
    penalizer = Penalizer(params, prompt_ids=[0], stop_ids=[4], device=torch.device("cpu"))
    logits = torch.tensor([2.0, -2.0, 1.0, 0.0, 5.0])
    first = logits.clone()
    penalizer.apply(first)
    assert first.tolist() == [1.0, -2.0, 1.0, 1.0, float("-inf")]  # prompt token 0 halved
    penalizer.cumulate(2)
    penalizer.cumulate(2)
    second = logits.clone()
    penalizer.apply(second)
    # token 2: 1 - 0.5 * 2 - 0.25 = -0.25, then repetition: -0.5; token 4 allowed now
    assert second.tolist() == [1.0, -2.0, -0.5, 1.0, 5.0]


def test_the_bitmask_allows_exactly_its_tokens() -> None:
    logits = torch.zeros(2, 40)
    bitmask = torch.zeros(2, 2, dtype=torch.int32)
    bitmask[0, 0] = 1 << 3
    bitmask[1, 1] = 1 << 2  # token 34
    bitmask[1, 0] = -(1 << 31)  # bit 31 alone: token 31 (the sign bit)
    apply_token_bitmask(logits, bitmask)
    assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == [3]
    assert torch.isfinite(logits[1]).nonzero().flatten().tolist() == [31, 34]


def test_sampled_logprobs_are_temperature_scaled_and_top_tokens_sorted() -> None:
    logits = torch.tensor([[0.0, 1.0, 2.0, 3.0]])
    tokens, rows = Sampler().sample(logits, [SamplingParams(temperature=0.5, seed=1)], [None])
    assert rows[0].tolist() == pytest.approx(torch.log_softmax(logits[0] / 0.5, -1).tolist())
    tops, asked = position_details(rows, 2, [0])
    assert [t for _, t in tops[0]] == [3, 2]
    assert asked[0] == pytest.approx((float(rows[0, 0]),))
    assert int(tokens[0]) in range(4)


def test_prompt_logprobs_are_gathered_across_chunks() -> None:
    torch.manual_seed(0)
    ids = [5, 1, 7, 2, 6, 3]
    logits = torch.randn(len(ids), 8)
    whole = InputLogprobCollector(ids, 2, 1, None)
    whole.add(1, logits[1:])
    chunked = InputLogprobCollector(ids, 2, 1, None)
    assert chunked.logits_from == 1
    chunked.add(1, logits[1:3])  # positions 1 and 2
    assert chunked.next_pos == 4  # positions 2 and 3 have their logprobs
    assert chunked.logits_from == 3
    chunked.add(3, logits[3:])
    assert chunked.done
    assert whole.result() == chunked.result()
    expected = [float(torch.log_softmax(logits[p - 1], -1)[ids[p]]) for p in range(2, 6)]
    assert list(whole.result().token_logprobs) == pytest.approx(expected)
    empty = InputLogprobCollector(ids, 0, 0, None).result()
    assert list(empty.token_logprobs) == [None]


def test_the_xgrammar_backend_compiles_each_grammar_once(tmp_path: Path) -> None:
    from sglang.srt.constrained import create_grammar_backend
    from sglang.srt.hf_tokenizer import HFTokenizer
    from sglang.testing.make_model import make_model

    tokenizer = HFTokenizer.from_pretrained(make_model(tmp_path / "m", arch="llama"))
    backend = create_grammar_backend("xgrammar", tokenizer, 384, [1])
    assert backend is not None
    assert create_grammar_backend("none", tokenizer, 384, [1]) is None
    first = backend.get_grammar("regex", "ab+")
    second = backend.get_grammar("regex", "ab+")
    assert (backend.misses, backend.hits) == (1, 1)
    assert first is not second  # one state per request
    bitmask = torch.full((1, 12), -1, dtype=torch.int32)
    first.fill_vocab_mask(bitmask, 0)
    logits = torch.zeros(1, 384)
    apply_token_bitmask(logits, bitmask)
    allowed = torch.isfinite(logits[0]).nonzero().flatten().tolist()
    assert allowed
    assert all(tokenizer.decode([t]).startswith("a") for t in allowed)
    assert first.accept_token(allowed[0])
    assert not first.is_terminated
