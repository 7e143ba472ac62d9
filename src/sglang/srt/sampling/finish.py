"""Detokenising a request's output as it grows, and deciding when it ends.

:class:`OutputTracker` follows one request: it receives each new token id,
keeps ``output_ids`` (the token that ended the request included), turns
them into text incrementally (special tokens left out, a character split
across tokens held back until complete) and applies the finish rules in
this order: EOS (unless ``ignore_eos``), a stop token, a stop string (the
text is cut before it), ``max_new_tokens`` or the context length.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = ["Decoder", "FinishReason", "FinishType", "OutputTracker"]


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
        before = self._decoder.decode(self.output_ids[self._prefix : self._read])
        after = self._decoder.decode(self.output_ids[self._prefix :])
        if not final and (after.endswith("\ufffd") or len(after) <= len(before)):
            return ""
        self._prefix, self._read = self._read, len(self.output_ids)
        return after[len(before) :]

    def _held_back(self) -> int:
        """How many trailing characters could still become the start of a stop string."""
        for size in range(min(self._longest_stop - 1, len(self._text)), 0, -1):
            tail = self._text[-size:]
            if any(stop.startswith(tail) for stop in self.params.stop):
                return size
        return 0

    def _flush(self) -> str:
        chunk = self._text[self._sent :]
        self._sent = len(self._text)
        return chunk

    def _match_stop(self, searched_from: int) -> None:
        """Cut the text before the earliest stop string that ends in its new part."""
        best: tuple[int, str] | None = None
        for stop in self.params.stop:
            at = self._text.find(stop, max(0, searched_from - len(stop) + 1))
            if at >= 0 and (best is None or at < best[0]):
                best = (at, stop)
        if best is not None:
            self._text = self._text[: best[0]]
            self.finish = FinishReason(FinishType.STOP, best[1])

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
        if token_id in self._eos or token_id in self._stop_ids:
            # the ending token stays in output_ids but is not part of the text
            self.finish = FinishReason(FinishType.STOP, token_id)
            self.output_ids.pop()
            self._text += self._decode_new(final=True)
            self.output_ids.append(token_id)
            self._match_stop(0)
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
