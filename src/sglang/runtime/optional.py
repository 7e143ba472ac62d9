"""Import a runtime piece on first use, with an error that names what is missing.

Serve backends import their server modules only when they run, so that
selecting a backend and ``--help`` stay cheap. When such a module (or the
attribute in it) is not importable, :func:`import_required` raises
:class:`MissingComponentError` naming the module, the attribute, who
needed it and how to get it, instead of a bare traceback.
"""

from __future__ import annotations

from collections.abc import Callable

from sglang.runtime.resolver import import_module

__all__ = ["MissingComponentError", "import_required"]


class MissingComponentError(ImportError):
    """A module or attribute that a runtime needs is not importable."""


def import_required(module: str, attr: str, needed_by: str, hint: str) -> Callable[..., object]:
    """Return the callable ``module.attr``, imported now.

    Args:
        module: The absolute module name.
        attr: The attribute in it.
        needed_by: Who needs it, for the message ("the llm serve backend").
        hint: How to get it, for the message.

    Raises:
        MissingComponentError: if *module* (or a module it imports) is
            missing, or *attr* is not a callable in it.
    """
    try:
        found: object = getattr(import_module(module), attr)
    except ModuleNotFoundError as exc:
        missing = exc.name or module
        fix = hint if missing.split(".")[0] != "sglang" else "reinstall or upgrade sglang"
        raise MissingComponentError(
            f"{needed_by} needs {module}.{attr}, but module {missing!r} is missing; {fix}"
        ) from exc
    except AttributeError as exc:
        raise MissingComponentError(
            f"{needed_by} needs {module}.{attr}, but {module} has no {attr!r}; this sglang "
            f"build is incomplete: reinstall sglang"
        ) from exc
    if not callable(found):
        raise MissingComponentError(f"{needed_by} needs {module}.{attr} to be callable")
    return found
