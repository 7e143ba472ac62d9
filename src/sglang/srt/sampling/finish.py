"""Detokenising a request's output as it grows, and deciding when it ends.

:class:`OutputTracker` follows one request: it receives each new token id,
keeps ``output_ids`` (the token that ended the request included), turns
them into text incrementally (special tokens left out unless
``skip_special_tokens`` is false, a character split across tokens held back
until complete) and applies the finish rules in this order: EOS (unless
``ignore_eos``), a stop token, a stop string, a ``stop_regex`` match (the
text is cut before the stop string or the match, unless ``no_stop_trim``),
``max_new_tokens`` or the context length. Before ``min_new_tokens`` tokens
only the length rules apply.

A ``stop_regex`` match may start at most :data:`REGEX_HOLD_CHARS` characters
before the end of the text (the text that long is held back while the
request streams, or the pattern's longest match if that is shorter).
"""

from __future__ import annotations

import enum
import importlib
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Protocol

from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = ["REGEX_HOLD_CHARS", "Decoder", "FinishReason", "FinishType", "OutputTracker"]

REGEX_HOLD_CHARS = 256
"""The longest ``stop_regex`` match, in characters, that is guaranteed to be found whole."""

_sre: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")


def _longest_match(pattern: str) -> int:
    """The most characters *pattern* can match, capped at :data:`REGEX_HOLD_CHARS`."""
    return int(min(_sre.parse(pattern).getwidth()[1], REGEX_HOLD_CHARS))


class Decoder(Protocol):
    """What the tracker needs of a tokenizer (``tokenizers.Tokenizer`` has it)."""

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        """Return the text of *ids*."""
        ...


class FinishType(enum.Enum):
    """Why a request ended, as upstream's ``finish_reason["type"]``."""

    LENGTH = "length"
    """``max_new_tokens`` or the context length was reached."""

    STOP = "stop"
    """EOS, a stop token or a stop string."""

    ABORT = "abort"
    """The request was aborted (by the client, or because it failed)."""


@dataclass(frozen=True)
class FinishReason:
    """Why a request ended, and what matched.

    Attributes:
        type: Length, stop or abort.
        matched: The EOS or stop token id, or the stop string, that ended it.
        message: Why it was aborted, for :attr:`FinishType.ABORT`.
    """

    type: FinishType
    matched: int | str | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, object]:
        """Return upstream's shape: ``{"type": ..., "matched": ...}`` (``matched`` if any)."""
        out: dict[str, object] = {"type": self.type.value}
        if self.matched is not None:
            out["matched"] = self.matched
        if self.message is not None:
            out["message"] = self.message
        return out


class OutputTracker:
    """One request's output: ids, incremental text and the finish decision.

    Args:
        decoder: The tokenizer.
        params: The request's sampling parameters.
        eos_token_ids: The model's end-of-sequence ids (``generation_config.json``).
        prompt_tokens: The prompt's length, for the context-length limit.
        context_length: The most tokens prompt plus output may have.
    """

    def __init__(
        self,
        decoder: Decoder,
        params: SamplingParams,
        eos_token_ids: Collection[int],
        *,
        prompt_tokens: int,
        context_length: int,
    ) -> None:
        self._decoder = decoder
        self.params = params
        self._eos = frozenset(() if params.ignore_eos else eos_token_ids)
        self._stop_ids = frozenset(params.stop_token_ids)
        self._room = min(params.max_new_tokens, context_length - prompt_tokens)
        self.output_ids: list[int] = []
        self.finish: FinishReason | None = None
        self._text = ""  # decoded so far (complete characters), cut at a matched stop string
        self._sent = 0  # characters of _text already returned by append()
        self._prefix = 0  # output_ids[_prefix:_read] decode to the end of _text
        self._read = 0
        self._longest_stop = max((len(stop) for stop in params.stop), default=0)
        self._regexes = [re.compile(p) for p in params.stop_regex]
        self._regex_hold = max((_longest_match(p) for p in params.stop_regex), default=0)

    @property
    def finished(self) -> bool:
        """Whether the request has ended."""
        return self.finish is not None

    @property
    def room(self) -> int:
        """The most tokens the request may generate (``max_new_tokens`` or the context)."""
        return self._room

    @property
    def text(self) -> str:
        """The output text: special tokens left out, cut before a matched stop string."""
        return self._text

    def _decode_new(self, *, final: bool = False) -> str:
        """Return the text the newest ids add (held back while a character is incomplete)."""
        skip = self.params.skip_special_tokens
        before = self._decoder.decode(self.output_ids[self._prefix : self._read], skip)
        after = self._decoder.decode(self.output_ids[self._prefix :], skip)
        if not final and (after.endswith("\ufffd") or len(after) <= len(before)):
            return ""
        self._prefix, self._read = self._read, len(self.output_ids)
        return after[len(before) :]

    def _held_back(self) -> int:
        """How many trailing characters could still become the start of a stop string."""
        held = min(self._regex_hold, len(self._text) - self._sent)
        for size in range(min(self._longest_stop - 1, len(self._text)), held, -1):
            tail = self._text[-size:]
            if any(stop.startswith(tail) for stop in self.params.stop):
                return size
        return held

    def _flush(self) -> str:
        chunk = self._text[self._sent :]
        self._sent = len(self._text)
        return chunk

    def _match_stop(self, searched_from: int) -> None:
        """End at the earliest stop string or regex match that ends in the text's new part."""
        if len(self.output_ids) < self.params.min_new_tokens:
            return
        best: tuple[int, int, str] | None = None  # (start, end, what matched)
        for stop in self.params.stop:
            at = self._text.find(stop, max(0, searched_from - len(stop) + 1))
            if at >= 0 and (best is None or at < best[0]):
                best = (at, at + len(stop), stop)
        window = max(self._sent, searched_from - REGEX_HOLD_CHARS)
        for regex in self._regexes:
            found = regex.search(self._text, window)
            while (
                found is not None and found.end() <= searched_from and found.end() > found.start()
            ):
                found = regex.search(self._text, found.start() + 1)
            if found is not None and (best is None or found.start() < best[0]):
                best = (found.start(), found.end(), regex.pattern)
        if best is not None:
            start, end, matched = best
            self._text = self._text[: end if self.params.no_stop_trim else max(start, self._sent)]
            self.finish = FinishReason(FinishType.STOP, matched)

    def append(self, token_id: int) -> str:
        """Add a generated token; return the text that may be shown now (``""`` if none).

        Text that could be the start of a stop string is held back until it
        is clear, so streamed chunks never show what a stop string later
        removes. After this the request may be :attr:`finished`; the last
        call returns everything still held back.
        """
        if self.finish is not None:
            raise RuntimeError("the request has already finished")
        self.output_ids.append(token_id)
        may_stop = len(self.output_ids) > self.params.min_new_tokens
        if may_stop and (token_id in self._eos or token_id in self._stop_ids):
            # the ending token stays in output_ids; its text only with no_stop_trim
            if not self.params.no_stop_trim:
                self.output_ids.pop()
            searched_from = len(self._text)
            self._text += self._decode_new(final=True)
            if not self.params.no_stop_trim:
                self.output_ids.append(token_id)
            self._match_stop(searched_from)
            if self.finish is None:
                self.finish = FinishReason(FinishType.STOP, token_id)
            return self._flush()
        last = len(self.output_ids) >= self._room
        searched_from = len(self._text)
        self._text += self._decode_new(final=last)
        self._match_stop(searched_from)
        if self.finish is None and last:
            self.finish = FinishReason(FinishType.LENGTH)
        if self.finish is not None:
            return self._flush()
        safe = len(self._text) - self._held_back()
        chunk = self._text[self._sent : safe]
        self._sent = max(self._sent, safe)
        return chunk

    def finish_empty(self) -> None:
        """End a request that may generate nothing (``max_new_tokens`` 0) with ``length``."""
        if self.finish is None:
            self.finish = FinishReason(FinishType.LENGTH)

    def finish_stop(self, matched: int) -> str:
        """End the request now with ``stop`` (its grammar is complete); return the held text."""
        if self.finish is None:
            self._text += self._decode_new(final=True)
            self.finish = FinishReason(FinishType.STOP, matched)
        return self._flush()

    def finish_length(self) -> str:
        """End the request now with finish reason ``length``; return the text held back.

        The scheduler calls it when the request cannot grow: it alone fills
        the KV cache.
        """
        if self.finish is None:
            self._text += self._decode_new(final=True)
            self.finish = FinishReason(FinishType.LENGTH)
        return self._flush()

    def abort(self, message: str) -> None:
        """End the request now with finish reason ``abort``."""
        if self.finish is None:
            self.finish = FinishReason(FinishType.ABORT, message=message)
