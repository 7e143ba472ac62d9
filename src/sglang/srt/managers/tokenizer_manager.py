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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sglang.srt.managers.io_struct import TokenizedRequest
from sglang.srt.sampling.sampling_params import SamplingParams

if TYPE_CHECKING:
    from sglang.srt.hf_tokenizer import HFTokenizer

__all__ = ["LogprobOptions", "PromptInput", "TokenizerManager", "split_prompts"]

PromptInput = tuple[str | None, Sequence[int] | None]
"""One prompt: ``(text, None)`` or ``(None, input_ids)``."""


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
            ValueError: A value of the wrong type or out of range (the message names it).
        """
        start = -1 if logprob_start_len is None else logprob_start_len
        top = 0 if top_logprobs_num is None else top_logprobs_num
        if not isinstance(return_logprob or False, bool):
            raise ValueError(f"return_logprob must be a boolean, got {return_logprob!r}")
        if not _is_int(start) or start < -1:
            raise ValueError(f"logprob_start_len must be -1 or a position >= 0, got {start!r}")
        if not _is_int(top) or top < 0:
            raise ValueError(f"top_logprobs_num must be an integer >= 0, got {top!r}")
        ids = None if token_ids_logprob is None else tuple(token_ids_logprob)
        if ids is not None and not all(_is_int(t) and t >= 0 for t in ids):
            raise ValueError(f"token_ids_logprob must be token ids, got {token_ids_logprob!r}")
        return cls(bool(return_logprob), start, top, ids, bool(return_text_in_logprobs))


def split_prompts(
    prompt: str | Sequence[str] | None,
    input_ids: Sequence[int] | Sequence[Sequence[int]] | None,
    sampling_params: Mapping[str, object] | Sequence[Mapping[str, object]] | None,
) -> tuple[bool, list[PromptInput], list[Mapping[str, object] | None]]:
    """``(is a batch, prompts, sampling params per prompt)`` of a generation call.

    A list of texts or of id lists is a batch; one ``sampling_params`` mapping
    serves every prompt, a list gives one per prompt.

    Raises:
        ValueError: A list of sampling params of another length than the prompts.
    """
    batch = isinstance(prompt, (list, tuple)) or (
        input_ids is not None and len(input_ids) > 0 and not isinstance(input_ids[0], int)
    )
    prompts: list[PromptInput]
    if batch:
        count = len(prompt) if isinstance(prompt, (list, tuple)) else len(input_ids or ())
        texts = list(prompt) if isinstance(prompt, (list, tuple)) else [None] * count
        ids_list = list(input_ids) if input_ids is not None else [None] * count
        prompts = list(zip(texts, ids_list, strict=True))  # type: ignore[arg-type]
    else:
        prompts = [(prompt if isinstance(prompt, str) else None, input_ids)]  # type: ignore[list-item]
    if isinstance(sampling_params, (list, tuple)):
        if len(sampling_params) != len(prompts):
            raise ValueError("give one sampling_params per prompt, or one for all")
        return batch, prompts, list(sampling_params)
    assert sampling_params is None or isinstance(sampling_params, Mapping)
    return batch, prompts, [sampling_params] * len(prompts)


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

    def tokenize(self, prompt: str | None, input_ids: Sequence[int] | None) -> list[int]:
        """The prompt's token ids (checked against the vocabulary)."""
        if (prompt is None) == (input_ids is None):
            raise ValueError("give exactly one of prompt and input_ids")
        ids = self.tokenizer.encode(prompt) if prompt is not None else list(input_ids or ())
        if not all(_is_int(t) and 0 <= t < self.tokenizer.vocab_size for t in ids):
            raise ValueError(f"input_ids must be token ids below {self.tokenizer.vocab_size}")
        return ids

    def check_params(self, params: SamplingParams) -> None:
        """Check what the model decides: token ids in the vocabulary, a valid grammar."""
        params.check_vocab(self.tokenizer.vocab_size)
        grammar = params.grammar
        if grammar is not None and grammar not in self._valid_grammars:
            from sglang.srt.constrained import validate_grammar

            validate_grammar(self.grammar_backend, *grammar)
            self._valid_grammars.add(grammar)

    def _check_fits(self, ids: list[int], params: SamplingParams, options: LogprobOptions) -> None:
        params.check_prompt(len(ids), self.context_length)
        if len(ids) + 1 > self.max_total_tokens:
            raise ValueError(
                f"the prompt has {len(ids)} tokens but the KV cache holds {self.max_total_tokens}; "
                f"raise --max-total-tokens or --mem-fraction-static"
            )
        if options.return_logprob and options.logprob_start_len >= len(ids):
            raise ValueError(
                f"logprob_start_len must be below the prompt's length ({len(ids)} tokens), "
                f"got {options.logprob_start_len}"
            )
        if options.token_ids_logprob:
            bad = [t for t in options.token_ids_logprob if t >= self.tokenizer.vocab_size]
            if bad:
                raise ValueError(f"token_ids_logprob must be below the vocabulary size: {bad}")

    def prepare(
        self,
        prompts: Sequence[PromptInput],
        sampling_params: Sequence[Mapping[str, object] | None],
        options: Sequence[LogprobOptions],
    ) -> list[TokenizedRequest]:
        """One request per prompt and sample, prompt-major; all checked before any is returned.

        Raises:
            ValueError: A bad prompt, parameter or option (the message names it).
        """
        requests: list[TokenizedRequest] = []
        for (text, input_ids), raw, option in zip(prompts, sampling_params, options, strict=True):
            params = SamplingParams.from_dict(raw)
            self.check_params(params)
            ids = self.tokenize(text, input_ids)
            self._check_fits(ids, params, option)
            base = params.seed if params.seed is not None else None
            for sample in range(params.n):
                # every rank must draw the same tokens: always seed
                seed = base + sample if base is not None else random.getrandbits(63)
                requests.append(
                    TokenizedRequest(
                        self.new_rid(),
                        tuple(ids),
                        dataclasses.replace(params, seed=seed, n=1),
                        option.return_logprob,
                        option.logprob_start_len,
                        option.top_logprobs_num if option.return_logprob else 0,
                        option.token_ids_logprob if option.return_logprob else None,
                    )
                )
        return requests
