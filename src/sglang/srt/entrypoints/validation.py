"""Checks the engine runs on a request before sending it: :class:`InvalidRequestError`.

Each refusal names the field at fault in the engine's own words
(:attr:`InvalidRequestError.param`): a sampling parameter's key
(``"top_p"``), ``"prompt"`` (the text or token ids are too long, empty or
out of the vocabulary), ``"input_ids"`` or ``"rid"``. The HTTP server maps
these names onto the request body it received (``max_new_tokens`` is
OpenAI's ``max_tokens``, a chat's prompt is its ``messages``, ...), so an
error's ``param`` always names a field the client sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = [
    "InvalidRequestError",
    "PromptItem",
    "check_prompt_ids",
    "check_rid",
    "parse_sampling_params",
    "split_prompts",
]


class InvalidRequestError(ValueError):
    """A request the engine refuses before sending it; nothing of it reached the scheduler.

    Args:
        message: What is wrong and how to fix it.
        param: The engine-level name of the field at fault (see the module docstring).
    """

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


_FIELDS = frozenset(item.name for item in dataclasses.fields(SamplingParams))


def parse_sampling_params(params: Mapping[str, object] | None) -> SamplingParams:
    """:meth:`SamplingParams.from_dict`, its refusal naming the key at fault.

    Raises:
        InvalidRequestError: An unknown key (``param`` is the first one) or
            a bad value (``param`` is its key).
    """
    try:
        return SamplingParams.from_dict(params)
    except ValueError as exc:
        unknown = sorted(set(params or {}) - _FIELDS)
        first = str(exc).split(" ", 1)[0]
        param = unknown[0] if unknown else (first if first in _FIELDS else None)
        raise InvalidRequestError(str(exc), param) from None


def check_prompt_ids(
    ids: Sequence[int],
    *,
    vocab_size: int,
    context_length: int,
    max_total_tokens: int,
    params: SamplingParams,
) -> None:
    """Refuse token ids outside the vocabulary and prompts that cannot run.

    A prompt must leave room for one new token in the context (the message
    says, in upstream's words, that it "is longer than the model's context
    length", with both numbers) and in the KV cache.

    Raises:
        InvalidRequestError: ``param`` ``"input_ids"`` (a bad id) or ``"prompt"``.
    """
    if not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < vocab_size for t in ids):
        raise InvalidRequestError(f"input_ids must be token ids below {vocab_size}", "input_ids")
    try:
        params.check_prompt(len(ids), context_length)
    except ValueError as exc:
        raise InvalidRequestError(str(exc), "prompt") from None
    if len(ids) + 1 > max_total_tokens:
        raise InvalidRequestError(
            f"the prompt has {len(ids)} tokens but the KV cache holds {max_total_tokens}; "
            f"raise --max-total-tokens or --mem-fraction-static",
            "prompt",
        )


def check_rid(rid: object) -> str:
    """Return *rid* if it is a usable request id (a non-empty string).

    Raises:
        InvalidRequestError: ``param`` ``"rid"``.
    """
    if not isinstance(rid, str) or not rid:
        raise InvalidRequestError(f"rid must be a non-empty string, got {rid!r}", "rid")
    return rid


class PromptItem(NamedTuple):
    """One prompt of an :meth:`Engine.generate` call, with its own parameters and id."""

    prompt: str | None
    input_ids: Sequence[int] | None
    sampling_params: Mapping[str, object] | None
    rid: str | None


def split_prompts(
    prompt: str | Sequence[str] | None,
    input_ids: Sequence[int] | Sequence[Sequence[int]] | None,
    sampling_params: Mapping[str, object] | Sequence[Mapping[str, object]] | None,
    rid: str | Sequence[str] | None,
) -> tuple[bool, list[PromptItem]]:
    """Whether :meth:`Engine.generate`'s arguments are a batch, and their prompts one by one.

    ``sampling_params`` and ``rid`` are one for all prompts or one per
    prompt (one ``rid`` for several prompts is refused: ids are unique).

    Raises:
        InvalidRequestError: Both or neither of *prompt* and *input_ids*, or a
            list of ``sampling_params`` or ``rid`` of another length.
    """
    if (prompt is None) == (input_ids is None):
        raise InvalidRequestError("give exactly one of prompt and input_ids", "prompt")
    batch = isinstance(prompt, (list, tuple)) or (
        input_ids is not None and len(input_ids) > 0 and not isinstance(input_ids[0], int)
    )
    prompts: list[str | None]
    ids_list: list[Sequence[int] | None]
    if batch:
        count = len(prompt) if isinstance(prompt, (list, tuple)) else len(input_ids or ())
        prompts = list(prompt) if isinstance(prompt, (list, tuple)) else [None] * count
        ids_list = list(input_ids) if input_ids is not None else [None] * count  # type: ignore[arg-type]
    else:
        prompts = [prompt] if isinstance(prompt, str) or prompt is None else [None]
        ids_list = [input_ids]  # type: ignore[list-item]
    params_list: list[Mapping[str, object] | None]
    if isinstance(sampling_params, (list, tuple)):
        if len(sampling_params) != len(prompts):
            raise InvalidRequestError(
                "give one sampling_params per prompt, or one for all", "sampling_params"
            )
        params_list = list(sampling_params)
    else:
        assert sampling_params is None or isinstance(sampling_params, Mapping)
        params_list = [sampling_params] * len(prompts)
    rids: list[str | None] = (
        [rid] * (1 if isinstance(rid, str) else len(prompts))
        if rid is None or isinstance(rid, str)
        else list(rid)
    )
    if len(rids) != len(prompts):
        raise InvalidRequestError("give one rid per prompt", "rid")
    items = zip(prompts, ids_list, params_list, rids, strict=True)
    return batch, [PromptItem(*item) for item in items]
