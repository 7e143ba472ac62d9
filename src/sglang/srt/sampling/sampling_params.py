"""Per-request sampling parameters: :class:`SamplingParams`.

Requests name their parameters in a plain mapping (``{"temperature": 0,
"max_new_tokens": 16}``), as upstream SGLang's ``sampling_params``, with
upstream's names, defaults and ranges. :meth:`SamplingParams.from_dict` turns
it into a frozen object and rejects unknown keys and bad values with a
``ValueError`` naming the field, before the request reaches the scheduler,
so a bad request never disturbs others. A ``null`` value means the default,
as upstream.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SamplingParams"]

_ALIASES = {"sampling_seed": "seed"}
"""Upstream's other spellings of a field."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _strings(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(value)
    raise ValueError(f"{name} must be a string or a list of strings, got {value!r}")


def _logit_bias(value: object) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, Mapping):
        raise ValueError(f"logit_bias must map token ids to numbers, got {value!r}")
    pairs = []
    for key, bias in value.items():
        try:
            token = int(key)
        except (TypeError, ValueError):
            raise ValueError(f"logit_bias keys must be token ids, got {key!r}") from None
        if not _is_number(bias) or not math.isfinite(bias):
            raise ValueError(f"logit_bias[{key!r}] must be a finite number, got {bias!r}")
        pairs.append((token, float(bias)))
    return tuple(sorted(pairs))


@dataclass(frozen=True)
class SamplingParams:
    """How one request samples and when it stops (upstream SGLang's ``sampling_params``).

    Attributes:
        max_new_tokens: Most tokens to generate (the request ends with
            finish reason ``length`` there); ``0`` only prefills the prompt.
        min_new_tokens: Fewest tokens to generate: until then EOS and the
            stop tokens cannot be sampled and no stop rule ends the request.
        temperature: ``0`` is greedy; higher values flatten the distribution.
        top_p: Keep the smallest set of tokens whose probability reaches it.
        top_k: Keep the ``top_k`` most likely tokens; ``-1`` keeps all.
        min_p: Drop tokens less likely than ``min_p`` times the most likely.
        frequency_penalty: Subtracted from a token's logit once per time it
            was generated (``[-2, 2]``).
        presence_penalty: Subtracted from the logit of every token generated
            at least once (``[-2, 2]``).
        repetition_penalty: Divides the positive logits (multiplies the
            negative ones) of every token of the prompt or the output
            (``(0, 2]``; ``1`` is none).
        logit_bias: ``(token id, bias)`` pairs added to the logits.
        stop: Strings that end the request; the output text ends before them.
        stop_token_ids: Token ids that end the request (kept in ``output_ids``).
        stop_regex: Regular expressions that end the request when the output
            text matches them (the text ends before the match).
        ignore_eos: Keep generating after the model's end-of-sequence tokens.
        skip_special_tokens: Leave special tokens out of the output text.
        spaces_between_special_tokens: Accepted for upstream compatibility; the
            fast tokenizer's decoding never adds spaces between special tokens.
        no_stop_trim: Keep the matched stop string (or regex match) in the text.
        json_schema: A JSON schema the output must satisfy (a JSON string).
        regex: A regular expression the whole output must match.
        ebnf: An EBNF grammar (xgrammar's GBNF dialect) the output must match.
        n: Samples per prompt (each a request of its own that shares the prompt).
        seed: Makes a sampled request reproducible (``sampling_seed`` upstream).
    """

    max_new_tokens: int = 128
    min_new_tokens: int = 0
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    min_p: float = 0.0
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    repetition_penalty: float = 1.0
    logit_bias: tuple[tuple[int, float], ...] = ()
    stop: tuple[str, ...] = ()
    stop_token_ids: tuple[int, ...] = ()
    stop_regex: tuple[str, ...] = ()
    ignore_eos: bool = False
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    no_stop_trim: bool = False
    json_schema: str | None = None
    regex: str | None = None
    ebnf: str | None = None
    n: int = 1
    seed: int | None = None

    @property
    def greedy(self) -> bool:
        """Whether the next token is always the most likely one."""
        return self.temperature == 0 or self.top_k == 1

    @property
    def grammar(self) -> tuple[str, str] | None:
        """``(kind, source)`` of the output constraint (``json_schema``, ``regex``, ``ebnf``)."""
        for kind in ("json_schema", "regex", "ebnf"):
            source = getattr(self, kind)
            if source is not None:
                return kind, source
        return None

    @property
    def penalized(self) -> bool:
        """Whether the logits need changing before sampling (penalties, bias, min tokens)."""
        return bool(
            self.frequency_penalty
            or self.presence_penalty
            or self.repetition_penalty != 1.0
            or self.logit_bias
            or self.min_new_tokens
        )

    @classmethod
    def from_dict(cls, params: Mapping[str, object] | None) -> SamplingParams:
        """Build checked parameters from a request's mapping (``None``: the defaults).

        ``stop`` and ``stop_regex`` may be one string or a list; ``logit_bias``
        maps token ids (as strings, as JSON has them) to numbers; a ``null``
        value leaves the field at its default.

        Raises:
            ValueError: An unknown key, or a value of the wrong type or out
                of range; the message names the field.
        """
        values = {_ALIASES.get(k, k): v for k, v in (params or {}).items() if v is not None}
        known = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"unknown sampling parameter(s): {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known | set(_ALIASES)))}"
            )
        for name in ("stop", "stop_regex"):
            if name in values:
                values[name] = _strings(name, values[name])
        ids = values.get("stop_token_ids", ())
        if not isinstance(ids, (list, tuple)):
            raise ValueError(f"stop_token_ids must be a list of token ids, got {ids!r}")
        values["stop_token_ids"] = tuple(ids)
        if "logit_bias" in values:
            values["logit_bias"] = _logit_bias(values["logit_bias"])
        if isinstance(values.get("json_schema"), Mapping):  # upstream takes a string; a dict too
            import json

            values["json_schema"] = json.dumps(values["json_schema"])
        result = cls(**values)  # type: ignore[arg-type]
        result.verify()
        return result

    def _rules(self) -> list[tuple[str, bool, str]]:
        def between(name: str, low: float, high: float) -> tuple[str, bool, str]:
            value = getattr(self, name)
            ok = _is_number(value) and low <= value <= high
            return name, ok, f"in [{low:g}, {high:g}]"

        return [
            (
                "max_new_tokens",
                _is_int(self.max_new_tokens) and self.max_new_tokens >= 0,
                "a non-negative integer",
            ),
            (
                "min_new_tokens",
                _is_int(self.min_new_tokens)
                and self.min_new_tokens >= 0
                and (
                    not _is_int(self.max_new_tokens) or self.min_new_tokens <= self.max_new_tokens
                ),
                "an integer in [0, max_new_tokens]",
            ),
            (
                "temperature",
                _is_number(self.temperature)
                and math.isfinite(self.temperature)
                and self.temperature >= 0,
                "a finite number >= 0",
            ),
            ("top_p", _is_number(self.top_p) and 0 < self.top_p <= 1, "in (0, 1]"),
            (
                "top_k",
                _is_int(self.top_k) and (self.top_k == -1 or self.top_k >= 1),
                "-1 (all) or an integer >= 1",
            ),
            ("min_p", _is_number(self.min_p) and 0 <= self.min_p <= 1, "in [0, 1]"),
            between("frequency_penalty", -2.0, 2.0),
            between("presence_penalty", -2.0, 2.0),
            (
                "repetition_penalty",
                _is_number(self.repetition_penalty) and 0 < self.repetition_penalty <= 2,
                "in (0, 2] (1 is no penalty)",
            ),
            ("stop", all(isinstance(s, str) and s for s in self.stop), "non-empty strings"),
            (
                "stop_token_ids",
                all(_is_int(t) and t >= 0 for t in self.stop_token_ids),
                "non-negative integers",
            ),
            (
                "stop_regex",
                all(isinstance(s, str) and s for s in self.stop_regex),
                "non-empty strings",
            ),
            ("ignore_eos", isinstance(self.ignore_eos, bool), "a boolean"),
            ("skip_special_tokens", isinstance(self.skip_special_tokens, bool), "a boolean"),
            (
                "spaces_between_special_tokens",
                isinstance(self.spaces_between_special_tokens, bool),
                "a boolean",
            ),
            ("no_stop_trim", isinstance(self.no_stop_trim, bool), "a boolean"),
            ("json_schema", self.json_schema is None or isinstance(self.json_schema, str), "text"),
            ("regex", self.regex is None or isinstance(self.regex, str), "a string"),
            ("ebnf", self.ebnf is None or isinstance(self.ebnf, str), "a string"),
            ("n", _is_int(self.n) and self.n >= 1, "an integer >= 1"),
            ("seed", self.seed is None or _is_int(self.seed), "an integer or null"),
        ]

    def verify(self) -> None:
        """Raise ``ValueError`` naming the first field whose value is out of range."""
        for name, ok, expected in self._rules():
            if not ok:
                raise ValueError(f"{name} must be {expected}, got {getattr(self, name)!r}")
        for pattern in self.stop_regex:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"stop_regex {pattern!r} is not a valid regex: {exc}") from None
        grammars = [kind for kind in ("json_schema", "regex", "ebnf") if getattr(self, kind)]
        if len(grammars) > 1:
            raise ValueError(
                f"only one of json_schema, regex and ebnf may be set, got {' and '.join(grammars)}"
            )

    def check_vocab(self, vocab_size: int) -> None:
        """Raise ``ValueError`` when ``logit_bias`` or ``stop_token_ids`` name no token."""
        for token, _ in self.logit_bias:
            if not 0 <= token < vocab_size:
                raise ValueError(f"logit_bias keys must be in [0, {vocab_size - 1}], got {token}")
        for token in self.stop_token_ids:
            if token >= vocab_size:
                raise ValueError(f"stop_token_ids must be below {vocab_size}, got {token}")

    def check_prompt(self, prompt_tokens: int, context_length: int) -> None:
        """Raise ``ValueError`` when the prompt leaves no room in the context.

        The prompt must be shorter than *context_length*; the output is cut
        at the context length (finish reason ``length``).
        """
        if prompt_tokens >= context_length:
            raise ValueError(
                f"The input ({prompt_tokens} tokens) is longer than the model's context "
                f"length ({context_length} tokens); it must leave room for one new token"
            )
        if prompt_tokens == 0:
            raise ValueError("the prompt is empty: give text or input_ids")
