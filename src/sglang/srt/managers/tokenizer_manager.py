"""Turning a generation call into scheduler requests, in the caller's process.

:class:`TokenizerManager` is what :class:`~sglang.srt.entrypoints.engine.Engine`,
``/generate`` and the OpenAI routes share: it tokenizes each prompt, checks
the sampling parameters and the log-probability options against the model
(vocabulary, context length, KV capacity, the grammar), and expands a
prompt with ``n`` samples into ``n`` requests (prompt-major order: every
sample of the first prompt, then the second's). Samples of one prompt
share it through the prefix cache: the scheduler computes the prompt for
the first and lets the others find it cached. Sample *i* of a request
seeded with *s* is seeded with *s + i* (so ``n`` seeded samples equal
``n`` requests seeded ``s, s + 1, ...``); unseeded ones get random seeds.
Nothing is sent when any prompt of a call is refused.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt.entrypoints.validation import (
    InvalidRequestError,
    PromptItem,
    check_prompt_ids,
    check_rid,
    parse_sampling_params,
)
from sglang.srt.managers.io_struct import TokenizedRequest

if TYPE_CHECKING:
    from sglang.srt.hf_tokenizer import HFTokenizer
    from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = ["LogprobOptions", "TokenizerManager"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class LogprobOptions:
    """What log-probabilities a request reports, with upstream's names.

    Attributes:
        return_logprob: Report log-probabilities at all.
        logprob_start_len: The first prompt position reported (``-1``: none).
        top_logprobs_num: How many most likely tokens per position.
        token_ids_logprob: Tokens whose log-probabilities are reported per position.
        return_text_in_logprobs: Add each token's text to the entries.
    """

    return_logprob: bool = False
    logprob_start_len: int = -1
    top_logprobs_num: int = 0
    token_ids_logprob: tuple[int, ...] | None = None
    return_text_in_logprobs: bool = False

    @classmethod
    def build(
        cls,
        return_logprob: bool | None = False,
        logprob_start_len: int | None = None,
        top_logprobs_num: int | None = None,
        token_ids_logprob: Sequence[int] | None = None,
        return_text_in_logprobs: bool | None = False,
    ) -> LogprobOptions:
        """Checked options (``None``: the default).

        Raises:
            InvalidRequestError: A value of the wrong type or out of range (``param`` names it).
        """
        start = -1 if logprob_start_len is None else logprob_start_len
        top = 0 if top_logprobs_num is None else top_logprobs_num
        if not isinstance(return_logprob or False, bool):
            raise InvalidRequestError(
                f"return_logprob must be a boolean, got {return_logprob!r}", "return_logprob"
            )
        if not _is_int(start) or start < -1:
            raise InvalidRequestError(
                f"logprob_start_len must be -1 or a position >= 0, got {start!r}",
                "logprob_start_len",
            )
        if not _is_int(top) or top < 0:
            raise InvalidRequestError(
                f"top_logprobs_num must be an integer >= 0, got {top!r}", "top_logprobs_num"
            )
        ids = None if token_ids_logprob is None else tuple(token_ids_logprob)
        if ids is not None and not all(_is_int(t) and t >= 0 for t in ids):
            raise InvalidRequestError(
                f"token_ids_logprob must be token ids, got {token_ids_logprob!r}",
                "token_ids_logprob",
            )
        return cls(bool(return_logprob), start, top, ids, bool(return_text_in_logprobs))


class TokenizerManager:
    """Tokenizes and checks generation calls for one engine (see the module docstring).

    Args:
        tokenizer: The model's tokenizer.
        context_length: The longest prompt plus output.
        max_total_tokens: The KV cache's capacity in tokens.
        grammar_backend: ``--grammar-backend``.
        new_rid: Returns a fresh request id.
    """

    def __init__(
        self,
        tokenizer: HFTokenizer,
        *,
        context_length: int,
        max_total_tokens: int,
        grammar_backend: str,
        new_rid: Callable[[], str],
    ) -> None:
        self.tokenizer = tokenizer
        self.context_length = context_length
        self.max_total_tokens = max_total_tokens
        self.grammar_backend = grammar_backend
        self.new_rid = new_rid
        self._valid_grammars: set[tuple[str, str]] = set()

    def check_params(self, params: SamplingParams) -> None:
        """Check what the model decides: token ids in the vocabulary, a valid grammar.

        Raises:
            InvalidRequestError: ``param`` names the sampling parameter at fault.
        """
        try:
            params.check_vocab(self.tokenizer.vocab_size)
        except ValueError as exc:
            raise InvalidRequestError(str(exc), str(exc).split(" ", 1)[0]) from None
        grammar = params.grammar
        if grammar is not None and grammar not in self._valid_grammars:
            from sglang.srt.constrained import validate_grammar

            try:
                validate_grammar(self.grammar_backend, *grammar)
            except ValueError as exc:
                raise InvalidRequestError(str(exc), grammar[0]) from None
            self._valid_grammars.add(grammar)

    def _check_options(self, ids: list[int], options: LogprobOptions) -> None:
        if options.return_logprob and options.logprob_start_len >= len(ids):
            raise InvalidRequestError(
                f"logprob_start_len must be below the prompt's length ({len(ids)} tokens), "
                f"got {options.logprob_start_len}",
                "logprob_start_len",
            )
        if options.token_ids_logprob:
            bad = [t for t in options.token_ids_logprob if t >= self.tokenizer.vocab_size]
            if bad:
                raise InvalidRequestError(
                    f"token_ids_logprob must be below the vocabulary size: {bad}",
                    "token_ids_logprob",
                )

    def prepare(
        self, items: Sequence[PromptItem], options: Sequence[LogprobOptions]
    ) -> list[TokenizedRequest]:
        """One request per prompt and sample, prompt-major; all checked before any is returned.

        A prompt's ``rid`` names its request; with ``n`` > 1 sample *j* is
        ``f"{rid}-{j}"``. Without one, each request gets a fresh id.

        Raises:
            InvalidRequestError: A bad prompt, parameter, option or id (``param`` names it).
        """
        requests: list[TokenizedRequest] = []
        for item, option in zip(items, options, strict=True):
            params = parse_sampling_params(item.sampling_params)
            self.check_params(params)
            if (item.prompt is None) == (item.input_ids is None):
                raise InvalidRequestError("give exactly one of prompt and input_ids", "prompt")
            if item.prompt is not None:
                ids = self.tokenizer.encode(item.prompt)
            else:
                ids = list(item.input_ids or ())
            check_prompt_ids(
                ids,
                vocab_size=self.tokenizer.vocab_size,
                context_length=self.context_length,
                max_total_tokens=self.max_total_tokens,
                params=params,
            )
            self._check_options(ids, option)
            rid = None if item.rid is None else check_rid(item.rid)
            base = params.seed
            for sample in range(params.n):
                # every rank must draw the same tokens: always seed
                seed = base + sample if base is not None else random.getrandbits(63)
                if rid is None:
                    sample_rid = self.new_rid()
                else:
                    sample_rid = rid if params.n == 1 else f"{rid}-{sample}"
                requests.append(
                    TokenizedRequest(
                        sample_rid,
                        tuple(ids),
                        dataclasses.replace(params, seed=seed, n=1),
                        option.return_logprob,
                        option.logprob_start_len,
                        option.top_logprobs_num if option.return_logprob else 0,
                        option.token_ids_logprob if option.return_logprob else None,
                    )
                )
        return requests
