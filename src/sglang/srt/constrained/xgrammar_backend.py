"""The ``xgrammar`` grammar backend (upstream SGLang's default): :class:`XGrammarBackend`.

xgrammar compiles JSON schemas, regular expressions and EBNF grammars
against the tokenizer's vocabulary, read here from ``tokenizer.json`` (the
vocabulary in its stored form and how the decoder maps it to bytes:
byte-level BPE, byte fallback, or raw), so no ``transformers`` tokenizer is
needed.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import xgrammar

from sglang.srt.constrained.base_grammar_backend import (
    BaseGrammarBackend,
    BaseGrammarObject,
    InvalidGrammarError,
)

if TYPE_CHECKING:
    import torch

    from sglang.srt.hf_tokenizer import HFTokenizer

__all__ = ["GRAMMAR_BACKEND_CLS", "XGrammarBackend", "XGrammarObject"]

_COMPILER_THREADS = 2


def _decoder_kinds(decoder: Any) -> set[str]:
    if not isinstance(decoder, dict):
        return set()
    kinds = {str(decoder.get("type"))}
    for item in decoder.get("decoders") or []:
        kinds |= _decoder_kinds(item)
    return kinds


def tokenizer_info(
    tokenizer: HFTokenizer, vocab_size: int, stop_token_ids: Collection[int]
) -> xgrammar.TokenizerInfo:
    """Xgrammar's view of *tokenizer*: its vocabulary, how tokens map to bytes, the stop ids."""
    raw = tokenizer.tokenizer
    data = json.loads(raw.to_str())
    kinds = _decoder_kinds(data.get("decoder"))
    if "ByteLevel" in kinds:
        vocab_type = xgrammar.VocabType.BYTE_LEVEL
    elif "ByteFallback" in kinds:
        vocab_type = xgrammar.VocabType.BYTE_FALLBACK
    else:
        vocab_type = xgrammar.VocabType.RAW
    size = min(tokenizer.vocab_size, vocab_size)
    vocab = [raw.id_to_token(i) or "" for i in range(size)]
    prefix_space = "Metaspace" in kinds and "Strip" not in kinds
    return xgrammar.TokenizerInfo(
        vocab,
        vocab_type,
        vocab_size=vocab_size,
        stop_token_ids=sorted(stop_token_ids),
        add_prefix_space=prefix_space,
    )


class XGrammarObject:
    """One request's xgrammar matcher; satisfies :class:`BaseGrammarObject`."""

    def __init__(self, matcher: xgrammar.GrammarMatcher) -> None:
        self.matcher = matcher

    def fill_vocab_mask(self, bitmask: torch.Tensor, row: int) -> None:
        """Write the tokens allowed next into row *row* of *bitmask*."""
        self.matcher.fill_next_token_bitmask(bitmask, row)

    def accept_token(self, token: int) -> bool:
        """Advance by *token*; ``False`` if the grammar does not allow it."""
        return bool(self.matcher.accept_token(token))

    @property
    def is_terminated(self) -> bool:
        """Whether the grammar is complete and its stop token accepted."""
        return bool(self.matcher.is_terminated())


class XGrammarBackend(BaseGrammarBackend):
    """Compiles with :class:`xgrammar.GrammarCompiler`; see :class:`BaseGrammarBackend`."""

    def _setup(self, tokenizer: HFTokenizer, stop_token_ids: Collection[int]) -> None:
        info = tokenizer_info(tokenizer, self.vocab_size, stop_token_ids)
        self.compiler = xgrammar.GrammarCompiler(info, max_threads=_COMPILER_THREADS)

    @staticmethod
    def check(kind: str, source: str) -> None:
        """Raise :class:`InvalidGrammarError` when xgrammar cannot parse *source*."""
        parse: Any = {
            "json_schema": xgrammar.Grammar.from_json_schema,
            "regex": xgrammar.Grammar.from_regex,
            "ebnf": xgrammar.Grammar.from_ebnf,
        }[kind]
        try:
            parse(source)
        except (RuntimeError, ValueError) as exc:
            reason = str(exc).strip().splitlines()[0]
            if "] " in reason and reason.startswith("["):  # drop xgrammar's "[time] file:line: "
                reason = reason.split(": ", 1)[-1]
            raise InvalidGrammarError(f"{kind} is not valid: {reason}") from None

    def _compile(self, kind: str, source: str) -> object:
        if kind == "json_schema":
            return self.compiler.compile_json_schema(
                source, any_whitespace=not self.disable_any_whitespace
            )
        if kind == "regex":
            return self.compiler.compile_regex(source)
        return self.compiler.compile_grammar(source)

    def _matcher(self, compiled: object) -> BaseGrammarObject:
        assert isinstance(compiled, xgrammar.CompiledGrammar)
        return XGrammarObject(xgrammar.GrammarMatcher(compiled))


GRAMMAR_BACKEND_CLS = XGrammarBackend
"""The class :func:`~sglang.srt.constrained.base_grammar_backend.create_grammar_backend` builds."""
