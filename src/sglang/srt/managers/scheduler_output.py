"""What the scheduler sends for a request (:func:`request_output`) and its grammar backend.

:func:`request_output` builds one step's
:class:`~sglang.srt.managers.io_struct.RequestOutput`: the new token ids
and text, their log-probabilities and top tokens when the request asked,
and its prompt's log-probabilities with its first output.
:class:`GrammarCache` creates the ``--grammar-backend`` at the first
structured-output request (so a server that never sees one never imports
the grammar library) and hands each request a fresh grammar state.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from sglang.srt.managers.io_struct import RequestOutput

if TYPE_CHECKING:
    from sglang.srt.constrained import BaseGrammarBackend, BaseGrammarObject
    from sglang.srt.hf_tokenizer import HFTokenizer
    from sglang.srt.managers.schedule_batch import Req
    from sglang.srt.managers.tp_worker import GenerationBatchResult
    from sglang.srt.server_args import ServerArgs

__all__ = ["GrammarCache", "request_output"]


class GrammarCache:
    """The scheduler's grammar backend, created on first use.

    Args:
        server_args: ``--grammar-backend`` and ``--constrained-json-disable-any-whitespace``.
        tokenizer: The model's tokenizer.
        vocab_size: The logits' width.
        eos_token_ids: The tokens that end a complete grammar.
    """

    def __init__(
        self,
        server_args: ServerArgs,
        tokenizer: HFTokenizer,
        vocab_size: int,
        eos_token_ids: Collection[int],
    ) -> None:
        self.server_args = server_args
        self.tokenizer = tokenizer
        self.vocab_size = vocab_size
        self.eos_token_ids = tuple(eos_token_ids)
        self.backend: BaseGrammarBackend | None = None

    def get(self, kind: str, source: str) -> BaseGrammarObject:
        """A fresh grammar state for ``(kind, source)`` (compiled once, then cached).

        Raises:
            RuntimeError: Structured output is off (the engine refuses such requests first).
        """
        from sglang.srt.constrained import create_grammar_backend

        if self.backend is None:
            self.backend = create_grammar_backend(
                self.server_args.grammar_backend,
                self.tokenizer,
                self.vocab_size,
                self.eos_token_ids,
                disable_any_whitespace=self.server_args.constrained_json_disable_any_whitespace,
            )
        if self.backend is None:
            raise RuntimeError("structured output is off (--grammar-backend none)")
        return self.backend.get_grammar(kind, source)


def request_output(
    req: Req,
    ids: list[int],
    text: str,
    logprobs: list[float],
    result: GenerationBatchResult | None = None,
    row: int = 0,
) -> RequestOutput:
    """One output of *req*: *ids* and *text* added, with *logprobs* (row *row* of *result*)."""
    finish = req.tracker.finish
    request = req.request
    asked = request.return_logprob
    top = result.top_logprobs[row] if asked and result is not None and ids else ()
    values = result.token_ids_logprobs[row] if asked and result is not None and ids else ()
    input_logprobs = None
    collector = req.input_logprobs
    if collector is not None and collector.done and not req.input_logprobs_sent:
        req.input_logprobs_sent = True
        input_logprobs = collector.result()
    return RequestOutput(
        rid=req.rid,
        output_ids=tuple(ids),
        text=text,
        logprobs=tuple(logprobs) if asked else (),
        finish_reason=None if finish is None else finish.to_dict(),
        prompt_tokens=req.prompt_tokens,
        completion_tokens=req.output_len,
        cached_tokens=req.cached_tokens or 0,
        top_logprobs=(top,) if request.top_logprobs_num and ids else (),
        token_ids_logprobs=(values,) if request.token_ids_logprob and ids else (),
        input_logprobs=input_logprobs,
    )
