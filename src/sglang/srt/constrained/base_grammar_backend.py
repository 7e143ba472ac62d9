"""What a grammar backend provides, how one is chosen, and the device-side token mask.

A :class:`BaseGrammarBackend` compiles ``(kind, source)`` pairs (``kind`` is
``json_schema``, ``regex`` or ``ebnf``) into :class:`BaseGrammarObject`
matchers, one per request, caching what it compiled. The mask is a packed
bitmask, 32 tokens per ``int32`` word (bit ``i % 32`` of word ``i // 32``
allows token ``i``), filled on the host and applied on the logits' device
by :func:`apply_token_bitmask` in plain torch, so every platform's device
can run it.
"""

from __future__ import annotations

import collections
import importlib
import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

from sglang.srt.server_args import GRAMMAR_BACKENDS

if TYPE_CHECKING:
    import torch

    from sglang.srt.hf_tokenizer import HFTokenizer

__all__ = [
    "GRAMMAR_BACKENDS",
    "GRAMMAR_CACHE_SIZE",
    "BaseGrammarBackend",
    "BaseGrammarObject",
    "InvalidGrammarError",
    "apply_token_bitmask",
    "create_grammar_backend",
    "validate_grammar",
]

GRAMMAR_CACHE_SIZE = 256
"""Compiled grammars a backend keeps (least recently used dropped first)."""

_MODULES = {"xgrammar": "sglang.srt.constrained.xgrammar_backend"}


class InvalidGrammarError(ValueError):
    """A ``json_schema``, ``regex`` or ``ebnf`` that cannot be compiled (the message names it)."""


class BaseGrammarObject(Protocol):
    """One request's grammar state."""

    def fill_vocab_mask(self, bitmask: torch.Tensor, row: int) -> None:
        """Write the tokens allowed next into row *row* of the host ``int32`` *bitmask*."""
        ...

    def accept_token(self, token: int) -> bool:
        """Advance by *token*; ``False`` when the grammar does not allow it."""
        ...

    @property
    def is_terminated(self) -> bool:
        """Whether the grammar is complete (and its stop token accepted)."""
        ...


class BaseGrammarBackend:
    """Compiles grammars for one tokenizer and caches them.

    Subclasses implement :meth:`_setup`, :meth:`_compile`, :meth:`_matcher`
    and :meth:`check`.

    Args:
        tokenizer: The model's tokenizer.
        vocab_size: The model's vocabulary size (the logits' width).
        stop_token_ids: The tokens that end a complete grammar (EOS).
        disable_any_whitespace: JSON without free whitespace between tokens.

    Attributes:
        hits: Grammars served from the cache.
        misses: Grammars compiled.
    """

    def __init__(
        self,
        tokenizer: HFTokenizer,
        vocab_size: int,
        stop_token_ids: Collection[int],
        *,
        disable_any_whitespace: bool = False,
    ) -> None:
        self.vocab_size = vocab_size
        self.disable_any_whitespace = disable_any_whitespace
        self._cache: collections.OrderedDict[tuple[str, str], object] = collections.OrderedDict()
        self.hits = 0
        self.misses = 0
        self._setup(tokenizer, stop_token_ids)

    def _setup(self, tokenizer: HFTokenizer, stop_token_ids: Collection[int]) -> None:
        raise NotImplementedError

    @staticmethod
    def check(kind: str, source: str) -> None:
        """Raise :class:`InvalidGrammarError` when *source* is not a valid *kind*."""
        raise NotImplementedError

    def _compile(self, kind: str, source: str) -> object:
        raise NotImplementedError

    def _matcher(self, compiled: object) -> BaseGrammarObject:
        raise NotImplementedError

    def get_grammar(self, kind: str, source: str) -> BaseGrammarObject:
        """A fresh matcher for *source*, compiled once and then taken from the cache."""
        key = (kind, source)
        compiled = self._cache.get(key)
        if compiled is None:
            self.misses += 1
            compiled = self._compile(kind, source)
            self._cache[key] = compiled
            while len(self._cache) > GRAMMAR_CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self.hits += 1
            self._cache.move_to_end(key)
        return self._matcher(compiled)


def _backend_cls(name: str) -> type[BaseGrammarBackend]:
    if name not in _MODULES:
        raise ValueError(f"--grammar-backend must be one of {', '.join(GRAMMAR_BACKENDS)}")
    try:
        module = importlib.import_module(_MODULES[name])
    except ImportError as exc:
        raise RuntimeError(
            f"--grammar-backend {name} needs the {name} package, which is not installed "
            f"({exc}); install sglang[grammar], or pass --grammar-backend none"
        ) from None
    cls: type[BaseGrammarBackend] = module.GRAMMAR_BACKEND_CLS
    return cls


def validate_grammar(backend: str, kind: str, source: str) -> None:
    """Check a request's grammar in the engine's process, before it is sent.

    Raises:
        InvalidGrammarError: *source* is not a valid *kind*, or structured
            output is off (``--grammar-backend none``); the message names the field.
    """
    if backend == "none":
        raise InvalidGrammarError(
            f"{kind} needs structured output, which this server has turned off "
            f"(--grammar-backend none)"
        )
    if kind == "json_schema":
        try:
            json.loads(source)
        except json.JSONDecodeError as exc:
            raise InvalidGrammarError(f"json_schema is not valid JSON: {exc}") from None
    _backend_cls(backend).check(kind, source)


def create_grammar_backend(
    name: str,
    tokenizer: HFTokenizer,
    vocab_size: int,
    stop_token_ids: Collection[int],
    *,
    disable_any_whitespace: bool = False,
) -> BaseGrammarBackend | None:
    """The ``--grammar-backend`` *name* for *tokenizer* (``None`` for ``none``)."""
    if name == "none":
        return None
    cls = _backend_cls(name)
    return cls(tokenizer, vocab_size, stop_token_ids, disable_any_whitespace=disable_any_whitespace)


def apply_token_bitmask(logits: torch.Tensor, bitmask: torch.Tensor) -> None:
    """Set the logits of tokens *bitmask* disallows to ``-inf``, in place, on their device.

    Args:
        logits: ``[rows, vocab]`` float logits.
        bitmask: ``[rows, ceil(vocab / 32)]`` ``int32`` words on the same device.
    """
    import torch

    bits = torch.arange(32, dtype=torch.int32, device=bitmask.device)
    allowed = ((bitmask.unsqueeze(-1) >> bits) & 1).bool().flatten(1)[:, : logits.shape[-1]]
    logits.masked_fill_(~allowed, float("-inf"))
