"""A Hugging Face tokenizer directory, read without ``transformers``: :class:`HFTokenizer`.

Reads what ``transformers`` 4.4x and 5.x write next to a checkpoint:

* ``tokenizer.json``: the fast tokenizer, through ``tokenizers`` (its
  post-processor decides whether a BOS token is added, as in ``transformers``);
* ``tokenizer_config.json``: ``bos_token``/``eos_token`` (strings or
  added-token objects) and ``chat_template`` (a string, or a list of named
  templates of which ``default`` is used);
* ``chat_template.jinja``: the chat template as its own file (newer
  ``transformers``), preferred when present;
* ``generation_config.json``, then ``config.json``: ``eos_token_id`` (one id
  or a list), the ids that end generation.

The chat template is rendered with jinja2 in a sandbox, with the globals
Hugging Face templates expect (``raise_exception``, ``strftime_now``,
``bos_token``, ``eos_token``, ``add_generation_prompt``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["HFTokenizer"]


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def _token_text(value: object) -> str | None:
    """A special token as ``tokenizer_config.json`` spells it: a string or ``{"content": ...}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


def _ids(value: object) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return ()


def _chat_template(directory: Path, config: Mapping[str, Any]) -> str | None:
    jinja = directory / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8")
    template = config.get("chat_template")
    if isinstance(template, str):
        return template
    if isinstance(template, list):
        named = {
            item.get("name"): item.get("template") for item in template if isinstance(item, dict)
        }
        chosen = named.get("default")
        return chosen if isinstance(chosen, str) else None
    return None


class HFTokenizer:
    """The tokenizer, special tokens, EOS ids and chat template of a model directory.

    Args:
        tokenizer: The loaded ``tokenizers.Tokenizer``.
        bos_token: The BOS token's text, if the model has one.
        eos_token: The EOS token's text, if the model has one.
        eos_token_ids: Every id that ends generation.
        chat_template: The jinja2 chat template, if the model has one.
        source: Where it was read from, for messages.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        *,
        bos_token: str | None,
        eos_token: str | None,
        eos_token_ids: tuple[int, ...],
        chat_template: str | None,
        source: str,
    ) -> None:
        self.tokenizer = tokenizer
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.eos_token_ids = eos_token_ids
        self.chat_template = chat_template
        self.source = source
        self._template: Any = None

    @classmethod
    def from_pretrained(cls, path: str | Path) -> HFTokenizer:
        """Read the tokenizer files of the model directory *path*.

        Raises:
            FileNotFoundError: The directory or its ``tokenizer.json`` is missing.
        """
        from tokenizers import Tokenizer

        directory = Path(path)
        file = directory / "tokenizer.json"
        if not file.is_file():
            raise FileNotFoundError(
                f"{file} not found: the model directory {directory} needs the fast tokenizer "
                f"file tokenizer.json (save the tokenizer with transformers' "
                f"save_pretrained(), which writes it)"
            )
        config = _read_json(directory / "tokenizer_config.json")
        generation = _read_json(directory / "generation_config.json")
        model = _read_json(directory / "config.json")
        tokenizer = Tokenizer.from_file(str(file))
        eos_token = _token_text(config.get("eos_token"))
        eos_ids = _ids(generation.get("eos_token_id")) or _ids(model.get("eos_token_id"))
        if not eos_ids and eos_token is not None:
            eos_id = tokenizer.token_to_id(eos_token)
            eos_ids = () if eos_id is None else (eos_id,)
        return cls(
            tokenizer,
            bos_token=_token_text(config.get("bos_token")),
            eos_token=eos_token,
            eos_token_ids=eos_ids,
            chat_template=_chat_template(directory, config),
            source=str(directory),
        )

    @property
    def vocab_size(self) -> int:
        """The number of tokens, added tokens included."""
        return int(self.tokenizer.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str, *, add_special_tokens: bool = True) -> list[int]:
        """Return the ids the model sees for *text* (BOS included when the tokenizer adds it)."""
        return list(self.tokenizer.encode(text, add_special_tokens=add_special_tokens).ids)

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        """Return the text of *ids* (special tokens left out by default)."""
        return str(self.tokenizer.decode(ids, skip_special_tokens=skip_special_tokens))

    def apply_chat_template(
        self,
        messages: Sequence[Mapping[str, object]],
        *,
        add_generation_prompt: bool = True,
        continue_final_message: bool = False,
        template_kwargs: Mapping[str, object] | None = None,
    ) -> str:
        """Render *messages* (``{"role", "content"}`` mappings) with the chat template.

        Tokenise the result with ``encode(text, add_special_tokens=False)``:
        the template writes the special tokens itself. With
        *continue_final_message* the text ends with the last message's
        content (no end-of-turn after it and no generation prompt), so the
        model continues that message, as ``transformers`` does.
        *template_kwargs* are further template variables (``chat_template_kwargs``).

        Raises:
            ValueError: The model has no chat template, or the template
                rejected the messages (its ``raise_exception`` message).
        """
        if self.chat_template is None:
            raise ValueError(
                f"the model at {self.source} has no chat template (no chat_template.jinja and "
                f"no chat_template in tokenizer_config.json); send a prompt instead of messages"
            )
        if self._template is None:
            self._template = _compile(self.chat_template)
        variables = {
            **(template_kwargs or {}),
            "messages": list(messages),
            "add_generation_prompt": add_generation_prompt and not continue_final_message,
            "bos_token": self.bos_token or "",
            "eos_token": self.eos_token or "",
        }
        try:
            text = str(self._template.render(**variables))
        except _TemplateError as exc:
            raise ValueError(f"the chat template rejected the messages: {exc}") from None
        if not continue_final_message:
            return text
        final = str(messages[-1].get("content") or "") if messages else ""
        if not final.strip() or final.strip() not in text:
            raise ValueError(
                "continue_final_message needs a final message with content that the chat "
                "template writes out"
            )
        return text[: text.rindex(final.strip()) + len(final.strip())]


class _TemplateError(Exception):
    """Raised by a chat template's ``raise_exception()``."""


def _raise_exception(message: str) -> None:
    raise _TemplateError(message)


def _strftime_now(format: str) -> str:
    import datetime

    return datetime.datetime.now().strftime(format)


def _compile(source: str) -> Any:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.globals["raise_exception"] = _raise_exception
    environment.globals["strftime_now"] = _strftime_now
    environment.filters["tojson"] = _tojson
    return environment.from_string(source)


def _tojson(
    value: object,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """``tojson`` as Hugging Face templates expect it (plain JSON, not HTML-escaped)."""
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )
