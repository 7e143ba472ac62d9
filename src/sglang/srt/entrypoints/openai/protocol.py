"""The request bodies the HTTP server accepts, as pydantic models.

Unknown fields are refused (``400``, naming the field) rather than
silently ignored; fields that OpenAI clients commonly send with their
neutral value (``presence_penalty: 0``, ``logit_bias: {}``, ``n: 1``,
``logprobs: false`` or ``null``, ``stream_options.continuous_usage_stats:
false``, ``top_logprobs_num: 0``, ``logprob_start_len: -1``, ...) are
accepted only with that value. SGLang's extensions (``rid``, ``top_k``,
``min_p``, ``ignore_eos``, ``stop_token_ids``) are accepted as upstream
accepts them.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "ChatCompletionRequest",
    "ChatMessage",
    "CompletionRequest",
    "GenerateRequest",
    "StreamOptions",
    "TextPart",
]

_T = TypeVar("_T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _neutral(value: _T, neutral: tuple[object, ...], what: str) -> _T:
    """Return *value* if it is one of the *neutral* values (compared by type too), else refuse."""
    if any(value is n or (type(value) is type(n) and value == n) for n in neutral):
        return value
    raise ValueError(f"{what} is not supported yet (got {value!r})")


class StreamOptions(_Strict):
    """``stream_options``: ``include_usage`` adds a last chunk holding ``usage``."""

    include_usage: bool = False
    continuous_usage_stats: bool = False

    @field_validator("continuous_usage_stats")
    @classmethod
    def _no_continuous_usage(cls, value: bool) -> bool:
        return _neutral(value, (False,), "usage in every chunk (continuous_usage_stats)")


class _Sampling(_Strict):
    """The sampling fields completions and chat share."""

    model: str | None = None
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    n: int = 1
    stop: str | list[str] | None = None
    seed: int | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    rid: str | None = Field(None, min_length=1)
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    logit_bias: dict[str, float] | None = None
    # SGLang's extensions
    top_k: int | None = None
    min_p: float | None = None
    ignore_eos: bool = False
    stop_token_ids: list[int] | None = None

    @field_validator("n")
    @classmethod
    def _one_choice(cls, value: int) -> int:
        if value != 1:
            raise ValueError("only n=1 is supported: send one request per choice")
        return value

    @field_validator("presence_penalty", "frequency_penalty")
    @classmethod
    def _no_penalty(cls, value: float) -> float:
        if value != 0:
            raise ValueError("penalties are not supported (only 0)")
        return value

    @field_validator("logit_bias")
    @classmethod
    def _no_bias(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value:
            raise ValueError("logit_bias is not supported")
        return value

    def sampling_params(self, max_tokens: int | None) -> dict[str, object]:
        """The engine's ``sampling_params`` for this request."""
        params: dict[str, object] = {"temperature": self.temperature, "top_p": self.top_p}
        extras = {
            "max_new_tokens": max_tokens,
            "stop": [self.stop] if isinstance(self.stop, str) else self.stop,
            "seed": self.seed,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "stop_token_ids": self.stop_token_ids,
        }
        params.update({key: value for key, value in extras.items() if value is not None})
        if self.ignore_eos:
            params["ignore_eos"] = True
        return params

    @property
    def include_usage(self) -> bool:
        """Whether a stream ends with a chunk holding ``usage``."""
        return self.stream_options is not None and self.stream_options.include_usage


class CompletionRequest(_Sampling):
    """``POST /v1/completions``: one prompt, as text or token ids."""

    prompt: str | list[int] | list[str] | list[list[int]]
    max_tokens: int | None = Field(16, ge=0)
    echo: Literal[False] = False
    logprobs: int | bool | None = None
    best_of: Literal[1] | None = None
    suffix: None = None

    @field_validator("logprobs")
    @classmethod
    def _no_logprobs(cls, value: int | bool | None) -> None:
        _neutral(value, (None, False), "logprobs")
        return None

    @field_validator("prompt")
    @classmethod
    def _one_prompt(cls, value: Any) -> str | list[int]:
        if isinstance(value, list) and value and isinstance(value[0], str | list):
            if len(value) != 1:
                raise ValueError("send one prompt per request (a list of several is not supported)")
            value = value[0]
        if isinstance(value, str):
            return value
        return list(value)


class TextPart(_Strict):
    """A ``{"type": "text", "text": ...}`` part of a message's content."""

    type: Literal["text"]
    text: str


class ChatMessage(_Strict):
    """One message of a chat: a role and its content (text or text parts)."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[TextPart] | None = None
    name: str | None = None

    def text(self) -> str:
        """The content as one string (parts joined)."""
        if isinstance(self.content, list):
            return "".join(part.text for part in self.content)
        return self.content or ""


class ChatCompletionRequest(_Sampling):
    """``POST /v1/chat/completions``: messages rendered with the model's chat template."""

    messages: list[ChatMessage] = Field(min_length=1)
    max_tokens: int | None = Field(None, ge=0)
    max_completion_tokens: int | None = Field(None, ge=0)
    logprobs: bool | None = None
    top_logprobs: int | None = None

    @field_validator("logprobs")
    @classmethod
    def _no_logprobs(cls, value: bool | None) -> bool | None:
        return _neutral(value, (None, False), "logprobs")

    @field_validator("top_logprobs")
    @classmethod
    def _no_top_logprobs(cls, value: int | None) -> int | None:
        return _neutral(value, (None, 0), "top_logprobs")

    @property
    def token_limit(self) -> int | None:
        """``max_completion_tokens``, else ``max_tokens`` (``None``: the engine's default)."""
        return (
            self.max_completion_tokens
            if self.max_completion_tokens is not None
            else self.max_tokens
        )


class GenerateRequest(_Strict):
    """``POST /generate``, SGLang's native API: the arguments of ``Engine.generate``."""

    text: str | list[str] | None = None
    input_ids: list[int] | list[list[int]] | None = None
    sampling_params: dict[str, Any] | None = None
    stream: bool = False
    return_logprob: bool = False
    rid: str | list[str] | None = None
    top_logprobs_num: int = 0
    logprob_start_len: int = -1

    @field_validator("top_logprobs_num")
    @classmethod
    def _no_top_logprobs(cls, value: int) -> int:
        return _neutral(value, (0,), "top_logprobs_num")

    @field_validator("logprob_start_len")
    @classmethod
    def _no_input_logprobs(cls, value: int) -> int:
        return _neutral(value, (-1,), "input logprobs (logprob_start_len)")

    def rids(self, count: int) -> list[str | None]:
        """The ``rid`` of each of *count* prompts (``None``: the engine picks one).

        Raises:
            ValueError: A list of another length, or one id for several prompts.
        """
        if self.rid is None:
            return [None] * count
        rids = [self.rid] if isinstance(self.rid, str) else list(self.rid)
        if len(rids) != count:
            raise ValueError(f"give one rid per prompt ({count}), got {len(rids)}")
        return list(rids)

    def prompts(self) -> list[tuple[str | None, list[int] | None]]:
        """``(text, input_ids)`` per prompt.

        Raises:
            ValueError: Neither or both of ``text`` and ``input_ids``.
        """
        if (self.text is None) == (self.input_ids is None):
            raise ValueError("give exactly one of text and input_ids")
        if isinstance(self.text, str):
            return [(self.text, None)]
        if self.text is not None:
            return [(text, None) for text in self.text]
        ids = self.input_ids or []
        if ids and isinstance(ids[0], list):
            return [(None, list(item)) for item in ids if isinstance(item, list)]
        return [(None, [int(t) for t in ids if isinstance(t, int)])]
