"""Structured output: grammars that constrain what a request may generate.

A request with ``json_schema``, ``regex`` or ``ebnf`` in its sampling
parameters (or ``response_format`` on the OpenAI routes) is generated under
a grammar: before each step its grammar fills a token bitmask, the sampler
applies it to the logits on the selected platform's device (disallowed
tokens get ``-inf``), and the sampled token advances the grammar. When the
grammar is complete only EOS is allowed, so the request ends with
``finish_reason`` ``stop``.

``--grammar-backend`` chooses the library, as upstream SGLang's flag:
``xgrammar`` (the default, :mod:`~sglang.srt.constrained.xgrammar_backend`)
or ``none`` (structured output refused with ``400``). The grammar is checked
in the engine's process before the request is sent, so an invalid schema,
regex or grammar is a ``400`` naming the field; the scheduler compiles it
(compiled grammars are cached, keyed by kind and source).

* :mod:`~sglang.srt.constrained.base_grammar_backend`: what a backend and a
  grammar provide, the backend registry, the device-side mask;
* :mod:`~sglang.srt.constrained.xgrammar_backend`: the xgrammar backend.

Importing this package imports neither torch nor a grammar library.
"""

from sglang.srt.constrained.base_grammar_backend import (
    GRAMMAR_BACKENDS,
    BaseGrammarBackend,
    BaseGrammarObject,
    InvalidGrammarError,
    apply_token_bitmask,
    create_grammar_backend,
    validate_grammar,
)

__all__ = [
    "GRAMMAR_BACKENDS",
    "BaseGrammarBackend",
    "BaseGrammarObject",
    "InvalidGrammarError",
    "apply_token_bitmask",
    "create_grammar_backend",
    "validate_grammar",
]
