"""A byte-level BPE tokenizer trained on the spot, written as Hugging Face files.

:func:`write_tokenizer` trains a ``tokenizers`` BPE model on a small
built-in English text and writes ``tokenizer.json`` plus
``tokenizer_config.json`` (and, on request, ``chat_template.jinja``) the way
``transformers`` saves a fast tokenizer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CHATML_TEMPLATE",
    "SIMPLE_TEMPLATE",
    "SPECIAL_TOKENS",
    "TokenizerInfo",
    "write_tokenizer",
]

SPECIAL_TOKENS = ("<s>", "</s>", "<|im_start|>", "<|im_end|>")
"""The special tokens, with ids 0 to 3 in this order."""

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""The ChatML template (Qwen style)."""

SIMPLE_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ message['role'] + ': ' + message['content'] + eos_token + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}"
)
"""A role-prefixed template that starts with the BOS token (Llama style)."""

_TEXT = """\
The quick brown fox jumps over the lazy dog. A small model reads a short text and learns
which bytes tend to follow each other. Tokens are pieces of words; common words become a
single token, rare words are split into several. The scheduler batches requests, the
worker runs the model, and the cache keeps the keys and values of every token it has seen.
Once upon a time there was a little server that answered questions about the weather, the
sea, the mountains and the stars. It was fast because it never computed the same thing
twice, and it was fair because it served the oldest request first. Numbers like 0 1 2 3 4
5 6 7 8 9 10 42 100 2024 appear too, and punctuation: commas, periods; colons: and dashes -
Hello world! How are you today? I am fine, thank you. What is the capital of France? Paris.
"""


@dataclass(frozen=True)
class TokenizerInfo:
    """What the model files need to know about the written tokenizer.

    Attributes:
        vocab_size: The number of tokens (special tokens included).
        bos_token_id: The id of ``<s>``.
        eos_token_id: The id of ``</s>``.
        im_end_token_id: The id of ``<|im_end|>``.
    """

    vocab_size: int
    bos_token_id: int
    eos_token_id: int
    im_end_token_id: int


def write_tokenizer(
    directory: Path,
    *,
    vocab_size: int,
    add_bos: bool,
    chat_template: str,
    template_file: bool,
    model_max_length: int,
) -> TokenizerInfo:
    """Train a byte-level BPE tokenizer and write its files into *directory*.

    Args:
        directory: The model directory (must exist).
        vocab_size: The target vocabulary size (the trainer may stop earlier).
        add_bos: Whether encoding prepends ``<s>`` (a template post-processor).
        chat_template: The Jinja chat template.
        template_file: Write the template to ``chat_template.jinja`` (the
            ``transformers`` 5.x layout) instead of ``tokenizer_config.json``.
        model_max_length: The tokenizer's maximum length.

    Returns:
        The vocabulary size and special token ids.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_TEXT.splitlines(), trainer=trainer)
    ids = {token: _special_id(tokenizer.token_to_id(token), token) for token in SPECIAL_TOKENS}
    if add_bos:
        tokenizer.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", ids["<s>"])]
        )
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.save(str(directory / "tokenizer.json"))

    config: dict[str, object] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "pad_token": None,
        "add_bos_token": add_bos,
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length,
        "added_tokens_decoder": {
            str(ids[token]): {
                "content": token,
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for token in SPECIAL_TOKENS
        },
    }
    if template_file:
        (directory / "chat_template.jinja").write_text(chat_template, encoding="utf-8")
    else:
        config["chat_template"] = chat_template
    _write_json(directory / "tokenizer_config.json", config)
    return TokenizerInfo(
        vocab_size=tokenizer.get_vocab_size(),
        bos_token_id=ids["<s>"],
        eos_token_id=ids["</s>"],
        im_end_token_id=ids["<|im_end|>"],
    )


def _special_id(token_id: int | None, token: str) -> int:
    if token_id is None:  # pragma: no cover - the trainer always adds special tokens
        raise RuntimeError(f"the trained tokenizer lacks the special token {token!r}")
    return token_id


def _write_json(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
