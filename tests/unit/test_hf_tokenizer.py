"""HFTokenizer against transformers on a tokenizer directory written by transformers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from sglang.srt.hf_tokenizer import HFTokenizer

transformers = pytest.importorskip("transformers")

TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "{% if m['role'] == 'tool' %}{{ raise_exception('tools are not supported') }}{% endif %}"
    "<|{{ m['role'] }}|>{{ m['content'] }}{{ eos_token }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Grüße, 東京 & <tags>?"},
]


def _tokenizer(bos: bool) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=320,
        special_tokens=["<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(["hello world, the quick brown fox: Grüße aus 東京!"] * 30, trainer)
    if bos:
        bos_id = tok.token_to_id("<s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos_id)]
        )
    return tok


def _save(directory: Path, *, bos: bool) -> object:
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=_tokenizer(bos), bos_token="<s>", eos_token="</s>"
    )
    fast.chat_template = TEMPLATE
    fast.save_pretrained(str(directory))
    return fast


@pytest.mark.parametrize("bos", [True, False])
def test_encode_decode_and_chat_agree_with_transformers(tmp_path: Path, bos: bool) -> None:
    _save(tmp_path, bos=bos)
    reference = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    ours = HFTokenizer.from_pretrained(tmp_path)
    for text in ["hello world", "Grüße aus 東京!", "the <s> quick"]:
        assert ours.encode(text) == list(reference(text).input_ids)
        ids = ours.encode(text)
        assert ours.decode(ids) == reference.decode(ids, skip_special_tokens=True)
    rendered = ours.apply_chat_template(MESSAGES, add_generation_prompt=True)
    assert rendered == reference.apply_chat_template(
        MESSAGES, add_generation_prompt=True, tokenize=False
    )
    expected = reference.apply_chat_template(MESSAGES, add_generation_prompt=True, tokenize=True)
    # transformers 5 returns a BatchEncoding, 4.x a list of ids
    expected_ids = expected["input_ids"] if hasattr(expected, "keys") else expected
    assert ours.encode(rendered, add_special_tokens=False) == list(expected_ids)
    assert ours.bos_token == "<s>"
    assert ours.eos_token_ids == (ours.tokenizer.token_to_id("</s>"),)


def test_eos_ids_come_from_generation_config_first(tmp_path: Path) -> None:
    _save(tmp_path, bos=True)
    (tmp_path / "config.json").write_text(json.dumps({"eos_token_id": 7}))
    assert HFTokenizer.from_pretrained(tmp_path).eos_token_ids == (7,)
    (tmp_path / "generation_config.json").write_text(json.dumps({"eos_token_id": [1, 3]}))
    assert HFTokenizer.from_pretrained(tmp_path).eos_token_ids == (1, 3)


def test_the_template_may_live_in_tokenizer_config_as_named_templates(tmp_path: Path) -> None:
    _save(tmp_path, bos=True)
    (tmp_path / "chat_template.jinja").unlink(missing_ok=True)
    config_file = tmp_path / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config["chat_template"] = [
        {"name": "tool_use", "template": "unused"},
        {"name": "default", "template": "{{ messages[0]['content'] | tojson }}"},
    ]
    config["eos_token"] = {"content": "</s>", "special": True}
    config_file.write_text(json.dumps(config))
    ours = HFTokenizer.from_pretrained(tmp_path)
    assert ours.apply_chat_template([{"role": "user", "content": "a <b> ü"}]) == '"a <b> ü"'
    assert ours.eos_token == "</s>"


def test_errors_name_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"tokenizer\.json not found"):
        HFTokenizer.from_pretrained(tmp_path)
    _save(tmp_path, bos=True)
    ours = HFTokenizer.from_pretrained(tmp_path)
    with pytest.raises(ValueError, match="the chat template rejected the messages: tools are not"):
        ours.apply_chat_template([{"role": "tool", "content": "x"}])
    (tmp_path / "chat_template.jinja").unlink(missing_ok=True)
    config_file = tmp_path / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config.pop("chat_template", None)
    config_file.write_text(json.dumps(config))
    with pytest.raises(ValueError, match="has no chat template"):
        HFTokenizer.from_pretrained(tmp_path).apply_chat_template(MESSAGES)
