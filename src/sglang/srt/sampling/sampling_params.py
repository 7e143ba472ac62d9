"""Per-request sampling parameters: :class:`SamplingParams`.

Requests name their parameters in a plain mapping (``{"temperature": 0,
"max_new_tokens": 16}``), as upstream SGLang's ``sampling_params``.
:meth:`SamplingParams.from_dict` turns it into a frozen object and rejects
unknown keys and bad values with a ``ValueError`` naming the field, before
the request reaches the scheduler, so a bad request never disturbs others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SamplingParams"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class SamplingParams:
    """How one request samples and when it stops.

    Attributes:
        max_new_tokens: Most tokens to generate (the request ends with
            finish reason ``length`` there).
        temperature: ``0`` is greedy; higher values flatten the distribution.
        top_p: Keep the smallest set of tokens whose probability reaches it.
        top_k: Keep the ``top_k`` most likely tokens; ``-1`` keeps all.
        min_p: Drop tokens less likely than ``min_p`` times the most likely.
        stop: Strings that end the request; the output text ends before them.
        stop_token_ids: Token ids that end the request (kept in ``output_ids``).
        ignore_eos: Keep generating after the model's end-of-sequence tokens.
        seed: Makes a sampled request reproducible.
    """

    max_new_tokens: int = 128
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    min_p: float = 0.0
    stop: tuple[str, ...] = ()
    stop_token_ids: tuple[int, ...] = ()
    ignore_eos: bool = False
    seed: int | None = None

    @property
    def greedy(self) -> bool:
        """Whether the next token is always the most likely one."""
        return self.temperature == 0 or self.top_k == 1

    @classmethod
    def from_dict(cls, params: Mapping[str, object] | None) -> SamplingParams:
        """Build checked parameters from a request's mapping (``None``: the defaults).

        ``stop`` may be one string or a list of strings.

        Raises:
            ValueError: An unknown key, or a value of the wrong type or out
                of range; the message names the field.
        """
        values = dict(params or {})
        known = {item.name for item in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"unknown sampling parameter(s): {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        stop = values.get("stop", ())
        if isinstance(stop, str):
            values["stop"] = (stop,)
        elif isinstance(stop, (list, tuple)):
            values["stop"] = tuple(stop)
        else:
            raise ValueError(f"stop must be a string or a list of strings, got {stop!r}")
        ids = values.get("stop_token_ids", ())
        if not isinstance(ids, (list, tuple)):
            raise ValueError(f"stop_token_ids must be a list of token ids, got {ids!r}")
        values["stop_token_ids"] = tuple(ids)
        result = cls(**values)  # type: ignore[arg-type]
        result.verify()
        return result

    def verify(self) -> None:
        """Raise ``ValueError`` naming the first field whose value is out of range."""
        rules = [
            (
                "max_new_tokens",
                _is_int(self.max_new_tokens) and self.max_new_tokens >= 0,
                "a non-negative integer",
            ),
            (
                "temperature",
                _is_number(self.temperature) and self.temperature >= 0,
                "a number >= 0",
            ),
            ("top_p", _is_number(self.top_p) and 0 < self.top_p <= 1, "in (0, 1]"),
            (
                "top_k",
                _is_int(self.top_k) and (self.top_k == -1 or self.top_k >= 1),
                "-1 (all) or an integer >= 1",
            ),
            ("min_p", _is_number(self.min_p) and 0 <= self.min_p <= 1, "in [0, 1]"),
            ("stop", all(isinstance(s, str) and s for s in self.stop), "non-empty strings"),
            (
                "stop_token_ids",
                all(_is_int(t) and t >= 0 for t in self.stop_token_ids),
                "non-negative integers",
            ),
            ("ignore_eos", isinstance(self.ignore_eos, bool), "a boolean"),
            ("seed", self.seed is None or _is_int(self.seed), "an integer or null"),
        ]
        for name, ok, expected in rules:
            if not ok:
                raise ValueError(f"{name} must be {expected}, got {getattr(self, name)!r}")

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
