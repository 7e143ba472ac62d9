"""Which backend serves a request: explicit ``--model-type`` or the detectors.

* ``--model-type NAME`` imports only NAME's factory.
* ``--model-type auto`` (the default) loads every installed factory but the
  fallback's and asks their detectors. A backend without a detector is
  explicit-only; one ``MATCH`` selects it; several fail with a message
  listing them; ``UNKNOWN`` and a raising detector claim nothing (the raise
  is one WARNING naming the backend and its distribution); no match runs
  :data:`~sglang.cli.serve._table.FALLBACK_BACKEND`. A registration that
  fails to load is one WARNING and takes no part.
"""

from __future__ import annotations

from sglang.cli.serve._argv import AUTO
from sglang.cli.serve._errors import ServeError, warn
from sglang.cli.serve._registry import LoadedBackend, ServeBackendRegistry
from sglang.cli.serve._table import FALLBACK_BACKEND
from sglang.sdk.serve import ServeBackendDetection, ServeRequest

__all__ = ["select_backend"]


def _detect(loaded: LoadedBackend, request: ServeRequest) -> bool:
    """Whether *loaded*'s detector claims *request* (a failure claims nothing)."""
    detect = loaded.backend.detect
    if detect is None:
        return False
    try:
        verdict: object = detect(request)
    except Exception as exc:
        warn(
            f"serve backend {loaded.label}: its detector raised {type(exc).__name__}: {exc}; "
            f"it claims nothing under --model-type auto (choose a backend with --model-type NAME)"
        )
        return False
    if not isinstance(verdict, ServeBackendDetection):
        warn(
            f"serve backend {loaded.label}: its detector returned {verdict!r}, not a "
            f"ServeBackendDetection; it claims nothing under --model-type auto"
        )
        return False
    return verdict is ServeBackendDetection.MATCH


def _auto(registry: ServeBackendRegistry, request: ServeRequest) -> LoadedBackend:
    matches: list[LoadedBackend] = []
    for record in registry.records():
        if record.name == FALLBACK_BACKEND:
            continue
        try:
            loaded = registry.load(record)
        except ServeError as exc:
            warn(str(exc))
            continue
        if _detect(loaded, request):
            matches.append(loaded)
    if len(matches) > 1:
        names = ", ".join(match.label for match in matches)
        raise ServeError(
            f"several serve backends match {request.model_path!r}: {names}; choose one "
            f"with --model-type NAME (sglang does not break ties by install order)"
        )
    if matches:
        return matches[0]
    return registry.load(registry.record(FALLBACK_BACKEND))


def select_backend(
    registry: ServeBackendRegistry, model_type: str, request: ServeRequest
) -> LoadedBackend:
    """Return the backend ``--model-type model_type`` selects for *request*.

    Raises:
        ServeError: for an unknown or rejected name, or an ambiguous match.
    """
    if model_type == AUTO:
        return _auto(registry, request)
    return registry.load(registry.record(model_type))
