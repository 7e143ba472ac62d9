"""Signatures as text, the override rule of a type checker, and near-miss names.

Nothing here imports the modules an annotation names: annotations are read
as written (``from __future__ import annotations`` keeps them as strings)
and compared as normalised text, so checking a platform class never imports
torch.

* :func:`format_signature`: ``(self, device_id: int = 0) -> int``;
* :func:`override_problems`: how an override breaks the base's parameters
  (a parameter dropped or made required, a new required parameter): what
  mypy and pyright reject;
* :func:`signature_drift`: every other difference from the base's signature
  (a kind, a default, an annotation, the return type);
* :func:`near_miss`: the contract name a misspelt method was probably meant
  to override (``get_device_nmae``).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable

__all__ = [
    "annotation_text",
    "format_signature",
    "near_miss",
    "normalise_annotation",
    "override_problems",
    "signature_drift",
]

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)
_QUALIFIER = re.compile(r"\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])")


def annotation_text(annotation: object) -> str:
    """An annotation as source text (``""`` when there is none)."""
    if annotation is _P.empty:
        return ""
    if isinstance(annotation, str):
        return annotation
    if annotation is None or annotation is type(None):
        return "None"
    if isinstance(annotation, type):
        return annotation.__qualname__
    return inspect.formatannotation(annotation)


class _Text:
    """Shows an annotation as its text in :class:`inspect.Signature`'s ``str``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def format_signature(function: Callable[..., object]) -> str:
    """*function*'s signature with its annotations as written: ``(self, x: int) -> None``."""
    signature = inspect.signature(function)
    params = [
        p.replace(annotation=_Text(annotation_text(p.annotation)))
        if p.annotation is not _P.empty
        else p
        for p in signature.parameters.values()
    ]
    returns = signature.return_annotation
    shown = signature.replace(
        parameters=params,
        return_annotation=_Text(annotation_text(returns))
        if returns is not inspect.Signature.empty
        else inspect.Signature.empty,
    )
    return str(shown)


_DEPTH = {"[": 1, "(": 1, "]": -1, ")": -1}


def _split_top(text: str, separator: str) -> list[str]:
    """*text* split at each *separator* outside brackets."""
    parts: list[str] = []
    depth, current = 0, ""
    for char in text:
        depth += _DEPTH.get(char, 0)
        if char == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def normalise_annotation(text: str) -> str:
    """*text* in one spelling: no qualifiers or spaces, ``Optional``/``Union`` as sorted ``|``."""
    text = _QUALIFIER.sub("", text.replace(" ", "").strip("'\""))
    for form in ("Optional[", "Union["):
        start = text.find(form)
        while start != -1:
            depth, end = 0, start + len(form) - 1
            for end in range(start + len(form) - 1, len(text)):
                depth += _DEPTH.get(text[end], 0)
                if depth == 0:
                    break
            inner = _split_top(text[start + len(form) : end], ",")
            members = [*inner, "None"] if form == "Optional[" else inner
            text = f"{text[:start]}{'|'.join(members)}{text[end + 1 :]}"
            start = text.find(form)
    members = [_normalise_args(member) for member in _split_top(text, "|")]
    return "|".join(sorted(dict.fromkeys(members)))


def _normalise_args(text: str) -> str:
    open_at = text.find("[")
    if open_at == -1 or not text.endswith("]"):
        return text
    args = _split_top(text[open_at + 1 : -1], ",")
    return f"{text[:open_at]}[{','.join(normalise_annotation(arg) for arg in args)}]"


def _parameters(function: Callable[..., object]) -> list[inspect.Parameter]:
    params = list(inspect.signature(function).parameters.values())
    return params[1:] if params and params[0].name in ("self", "cls") else params


def override_problems(base: Callable[..., object], override: Callable[..., object]) -> list[str]:
    """What makes *override* (an unbound method) incompatible with *base*'s parameters."""
    try:
        theirs, ours = _parameters(base), _parameters(override)
    except (TypeError, ValueError):
        return []
    by_name = {p.name: p for p in ours}
    takes_args = any(p.kind is _P.VAR_POSITIONAL for p in ours)
    takes_kwargs = any(p.kind is _P.VAR_KEYWORD for p in ours)
    positional = [p for p in ours if p.kind in _POSITIONAL]
    problems: list[str] = []
    for index, param in enumerate(p for p in theirs if p.kind in (*_POSITIONAL, _P.KEYWORD_ONLY)):
        mine = by_name.get(param.name)
        if (
            param.kind is _P.POSITIONAL_ONLY
            and mine is None
            and index < len(positional)
            and positional[index].name != param.name
        ):
            mine = positional[index]  # positional-only: the name is not part of the contract
        if mine is None:
            if (param.kind is _P.KEYWORD_ONLY and takes_kwargs) or (
                param.kind in _POSITIONAL and takes_args and takes_kwargs
            ):
                continue
            problems.append(f"drops parameter {param.name!r}")
            continue
        if param.default is not _P.empty and mine.default is _P.empty:
            problems.append(f"makes parameter {param.name!r} required (the base has a default)")
        if param.kind is _P.POSITIONAL_OR_KEYWORD and mine.kind is _P.KEYWORD_ONLY:
            problems.append(f"makes parameter {param.name!r} keyword-only")
    base_names = {p.name for p in theirs}
    for mine in ours:
        if mine.name in base_names or mine.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD):
            continue
        if mine.default is _P.empty:
            problems.append(f"adds required parameter {mine.name!r}")
    return problems


def _differs(theirs: object, ours: object) -> bool:
    """Whether two annotations differ (an override without one is not judged)."""
    mine = annotation_text(ours)
    if not mine:
        return False
    return normalise_annotation(annotation_text(theirs)) != normalise_annotation(mine)


def signature_drift(base: Callable[..., object], override: Callable[..., object]) -> list[str]:
    """Differences of *override* from *base* that :func:`override_problems` allows.

    A parameter's kind (positional-only, keyword-only), default or annotation,
    and the return annotation; an override that leaves an annotation out is
    not judged on it.
    """
    try:
        theirs, ours = _parameters(base), _parameters(override)
        their_return = inspect.signature(base).return_annotation
        our_return = inspect.signature(override).return_annotation
    except (TypeError, ValueError):
        return []
    mine = {p.name: p for p in ours}
    drift: list[str] = []
    for param in theirs:
        found = mine.get(param.name)
        if found is None:
            continue
        reported = param.kind is _P.POSITIONAL_OR_KEYWORD and found.kind is _P.KEYWORD_ONLY
        if found.kind is not param.kind and not reported:  # the keyword-only case is a problem
            drift.append(
                f"parameter {param.name!r} is {found.kind.description}, "
                f"not {param.kind.description}"
            )
        if _P.empty not in (param.default, found.default) and found.default != param.default:
            drift.append(
                f"parameter {param.name!r} defaults to {found.default!r}, not {param.default!r}"
            )
        if _differs(param.annotation, found.annotation):
            drift.append(
                f"parameter {param.name!r} is annotated {annotation_text(found.annotation)!r}, "
                f"not {annotation_text(param.annotation)!r}"
            )
    if _differs(their_return, our_return):
        drift.append(
            f"returns {annotation_text(our_return)!r}, not {annotation_text(their_return)!r} "
            "(fine only for a subtype; mypy and pyright decide)"
        )
    return drift


def _distance(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment edit distance of *a* and *b*, capped at ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, start=1):
        current = [i]
        for j, other in enumerate(b, start=1):
            cost = 0 if char == other else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                value = min(value, previous2[j - 2] + 1)
            current.append(value)
        previous2, previous = previous, current
    return previous[-1]


def near_miss(name: str, contract: Iterable[str], *, limit: int = 2) -> str | None:
    """The contract name *name* is probably a misspelling of, or ``None``.

    A name counts when it is within *limit* edits (a swap of two neighbours
    is one) of a contract name and not shorter than six characters, so that
    short helpers are not taken for typos.
    """
    if len(name) < 6:
        return None
    best: tuple[int, str] | None = None
    for candidate in contract:
        if candidate == name:
            return None
        distance = _distance(name, candidate, limit)
        if distance <= limit and (best is None or (distance, candidate) < best):
            best = (distance, candidate)
    return best[1] if best is not None else None
