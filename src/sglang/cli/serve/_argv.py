"""Argument normalisation: what ``sglang serve`` hands to a backend.

The rules, in order:

1. Everything after the first ``--`` is the backend's, untouched; the
   ``--`` itself is passed on.
2. Before it, ``--model-type NAME`` and ``--model-type=NAME`` are removed;
   the last one wins (default ``auto``).
3. When no ``--model-path`` is left, the first remaining token, if it does
   not start with ``-``, is the positional model path and becomes
   ``--model-path PATH`` at the front. An explicit ``--model-path V`` or
   ``--model-path=V`` stays where it stands; its (last) value is the
   request's model path.
"""

from __future__ import annotations

from sglang.cli.serve._errors import ServeError
from sglang.sdk._record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["AUTO", "NormalizedArgv", "normalize_argv"]

AUTO = "auto"
"""The ``--model-type`` value that asks the detectors (the default)."""

_MODEL_TYPE = "--model-type"
_MODEL_PATH = "--model-path"
_SEPARATOR = "--"
_HELP = frozenset({"-h", "--help"})


class NormalizedArgv(Record):
    """The command line of ``sglang serve``, split into the core's part and the backend's.

    Attributes:
        model_type: The ``--model-type`` value (``"auto"`` when none was given).
        explicit: Whether ``--model-type`` was given at all.
        argv: The backend's arguments, in order.
        model_path: The positional or ``--model-path`` value, or ``None``.
        help: Whether ``-h`` or ``--help`` appears before ``--``.
    """

    model_type: str
    explicit: bool
    argv: tuple[str, ...]
    model_path: str | None
    help: bool


def _model_type_value(tokens: Sequence[str], index: int) -> str:
    """The value of the ``--model-type`` option at *index* (either spelling)."""
    token = tokens[index]
    if token == _MODEL_TYPE:
        value = tokens[index + 1] if index + 1 < len(tokens) else ""
    else:
        value = token[len(_MODEL_TYPE) + 1 :]
    if not value or value.startswith("-"):
        raise ServeError(
            f"{_MODEL_TYPE} needs a backend name (got {value!r}); for example "
            f"{_MODEL_TYPE} llm, or {_MODEL_TYPE} auto to let the detectors choose "
            f"(see sglang serve --help for the installed backends)"
        )
    return value


def _explicit_model_path(tokens: Sequence[str]) -> tuple[bool, str | None]:
    """Whether *tokens* hold ``--model-path``, and its last value."""
    found, value = False, None
    for index, token in enumerate(tokens):
        if token == _MODEL_PATH:
            found = True
            value = tokens[index + 1] if index + 1 < len(tokens) else None
        elif token.startswith(_MODEL_PATH + "="):
            found, value = True, token[len(_MODEL_PATH) + 1 :]
    return found, value


def normalize_argv(argv: Sequence[str]) -> NormalizedArgv:
    """Apply the normalisation rules of this module to ``sglang serve``'s *argv*.

    Raises:
        ServeError: if ``--model-type`` has no value.
    """
    tokens = list(argv)
    cut = tokens.index(_SEPARATOR) if _SEPARATOR in tokens else len(tokens)
    head, tail = tokens[:cut], tokens[cut:]
    model_type, explicit, kept = AUTO, False, []
    index = 0
    while index < len(head):
        token = head[index]
        if token == _MODEL_TYPE or token.startswith(_MODEL_TYPE + "="):
            model_type, explicit = _model_type_value(head, index), True
            index += 2 if token == _MODEL_TYPE else 1
            continue
        kept.append(token)
        index += 1
    has_path, model_path = _explicit_model_path(kept)
    rest = [*kept, *tail]
    if not has_path and rest and not rest[0].startswith("-"):
        model_path = rest[0]
        rest = [_MODEL_PATH, model_path, *rest[1:]]
    return NormalizedArgv(
        model_type=model_type,
        explicit=explicit,
        argv=tuple(rest),
        model_path=model_path,
        help=any(token in _HELP for token in kept),
    )
