"""The request bodies the HTTP server accepts, as pydantic models.

Unknown fields are refused (``400``, naming the field) rather than
silently ignored. The OpenAI fields carry OpenAI's names and meanings;
SGLang's extensions (``top_k``, ``min_p``, ``repetition_penalty``,
``min_tokens``, ``regex``, ``ebnf``, ``json_schema``, ``stop_regex``,
``rid``, ...) carry upstream SGLang's. The values of the sampling fields
are checked by the engine (:class:`~sglang.srt.sampling.sampling_params.SamplingParams`),
so every route refuses the same values with the same message.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "ChatCompletionRequest",
    "ChatMessage",
    "CompletionRequest",
    "GenerateRequest",
    "JsonSchemaFormat",
    "ResponseFormat",
    "StreamOptions",
    "TextPart",
]

MAX_N = 128
"""The most choices one request may ask for (``n``)."""

MAX_TOP_LOGPROBS = 20
"""The most ``top_logprobs`` (chat) or ``logprobs`` (completions) a request may ask for."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StreamOptions(_Strict):
    """``stream_options``: a last chunk with ``usage``, or the running ``usage`` in every chunk.

    ``include_usage`` adds the last chunk; ``continuous_usage_stats`` puts
    the choice's ``usage`` so far in every chunk.
    """

    include_usage: bool = False
    continuous_usage_stats: bool = False


class JsonSchemaFormat(_Strict):
    """``response_format.json_schema``: a named schema (``strict`` is accepted)."""

    name: str = "schema"
    description: str | None = None
    schema_: dict[str, Any] | None = Field(None, alias="schema")
    strict: bool | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ResponseFormat(_Strict):
    """``response_format``: ``text``, ``json_object`` (any JSON object) or ``json_schema``."""

    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None

    def grammar(self) -> str | None:
        """The JSON schema (as text) the output must satisfy, if any."""
        if self.type == "json_object":
            return json.dumps({"type": "object"})
        if self.type == "json_schema":
            schema = self.json_schema.schema_ if self.json_schema is not None else None
            if schema is None:
                raise ValueError("response_format json_schema needs json_schema.schema")
            return json.dumps(schema)
        return None


class _Sampling(_Strict):
    """The sampling fields completions and chat share."""

    model: str | None = None
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    n: int = Field(1, ge=1, le=MAX_N)
    stop: str | list[str] | None = None
    seed: int | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None
    rid: str | None = Field(None, min_length=1)
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    response_format: ResponseFormat | None = None
    # SGLang's extensions
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    min_tokens: int | None = None
    ignore_eos: bool = False
    stop_token_ids: list[int] | None = None
    stop_regex: str | list[str] | None = None
    skip_special_tokens: bool = True
    spaces_between_special_tokens: bool = True
    no_stop_trim: bool = False
    regex: str | None = None
    ebnf: str | None = None
    json_schema: str | None = None

    def sampling_params(self, max_tokens: int | None) -> dict[str, object]:
        """The engine's ``sampling_params`` for this request (unset fields left out)."""
        params: dict[str, object] = {
            "max_new_tokens": max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "stop": self.stop,
            "seed": self.seed,
            "presence_penalty": self.presence_penalty,
            "frequency_penalty": self.frequency_penalty,
            "repetition_penalty": self.repetition_penalty,
            "min_new_tokens": self.min_tokens,
            "logit_bias": self.logit_bias or None,
            "stop_token_ids": self.stop_token_ids,
            "stop_regex": self.stop_regex,
            "regex": self.regex,
            "ebnf": self.ebnf,
            "json_schema": self.json_schema,
            "n": self.n,
        }
        if self.response_format is not None:
            schema = self.response_format.grammar()
            if schema is not None:
                params["json_schema"] = schema
        for name in ("ignore_eos", "no_stop_trim"):
            if getattr(self, name):
                params[name] = True
        for name in ("skip_special_tokens", "spaces_between_special_tokens"):
            if not getattr(self, name):
                params[name] = False
        return {key: value for key, value in params.items() if value is not None}

    @property
    def include_usage(self) -> bool:
        """Whether a stream ends with a chunk holding ``usage``."""
        return self.stream_options is not None and self.stream_options.include_usage

    @property
    def continuous_usage(self) -> bool:
        """Whether every streamed chunk carries the running ``usage``."""
        return self.stream_options is not None and self.stream_options.continuous_usage_stats


class CompletionRequest(_Sampling):
    """``POST /v1/completions``: one prompt or several, as text or token ids."""

    prompt: str | list[int] | list[str] | list[list[int]]
    max_tokens: int | None = Field(16, ge=0)
    echo: bool = False
    logprobs: int | None = Field(None, ge=0, le=MAX_TOP_LOGPROBS)
    best_of: int | None = None
    suffix: str | None = None

    @field_validator("prompt")
    @classmethod
    def _some_prompt(cls, value: Any) -> Any:
        if isinstance(value, list) and not value:
            raise ValueError("prompt must not be empty")
        return value

    @field_validator("best_of")
    @classmethod
    def _best_of_is_n(cls, value: int | None) -> int | None:
        if value is not None and value != 1:
            raise ValueError(
                "best_of other than 1 is not supported: ask for n samples with logprobs "
                "and choose among them"
            )
        return value

    @field_validator("suffix")
    @classmethod
    def _no_suffix(cls, value: str | None) -> str | None:
        if value:
            raise ValueError("suffix is not supported: the served models have no fill-in mode")
        return value

    def prompts(self) -> list[tuple[str | None, list[int] | None]]:
        """``(text, input_ids)`` per prompt."""
        value = self.prompt
        if isinstance(value, str):
            return [(value, None)]
        if value and isinstance(value[0], str):
            return [(str(p), None) for p in value]
        if value and isinstance(value[0], list):
            return [(None, list(p)) for p in value if isinstance(p, list)]
        return [(None, [int(t) for t in value if isinstance(t, int)])]


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
    logprobs: bool | None = False
    top_logprobs: int | None = Field(None, ge=0, le=MAX_TOP_LOGPROBS)
    continue_final_message: bool = False
    chat_template_kwargs: dict[str, Any] | None = None
    return_prompt_token_ids: bool = False

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
    sampling_params: dict[str, Any] | list[dict[str, Any]] | None = None
    stream: bool = False
    return_logprob: bool | None = False
    logprob_start_len: int | None = None
    top_logprobs_num: int | None = None
    token_ids_logprob: list[int] | None = None
    return_text_in_logprobs: bool = False
    rid: str | list[str] | None = None

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

    @property
    def is_batch(self) -> bool:
        """Whether several prompts were given (the answer is then a list)."""
        return isinstance(self.text, list) or bool(
            self.input_ids and isinstance(self.input_ids[0], list)
        )
