"""Object references: the one set of rules for ``pkg.mod:attr`` and dotted paths.

Entry points (:meth:`sglang.runtime.discovery.EntryPointRecord.load`),
platform class qualnames (what an activation callback returns) and hook
targets all name an object by a string in one of two forms:

* **colon form**, ``"pkg.mod:Outer.attr"``: the part before the colon is
  the module; it is imported and the attribute path after the colon is
  walked (an empty path names the module itself);
* **dotted form**, ``"pkg.mod.Outer.attr"``: the module is the deepest
  importable prefix that leaves at least one attribute. The first part is
  imported, then each further part as a submodule (``sys.modules`` first,
  as ``import`` does) until a part is an attribute that is not a module,
  the module is not a package, or no such submodule exists.

An import error raised *inside* an existing module always propagates; only
"this submodule does not exist" ends the descent. Callers differ only in
what they allow and how they report: :func:`parse` checks the syntax (every
part an identifier, importing nothing), :func:`import_module_part` takes an
optional *wrap* for callers that report import failures in their own
terms, and entry points, whose values are read from metadata as they are,
call :func:`resolve_parts` with the module named.

Standard library only, and cheap: discovery and platform selection import it.
"""

from __future__ import annotations

import sys
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Wrap = Callable[[str, Exception], Exception]

__all__ = ["import_module", "import_module_part", "parse", "resolve", "resolve_parts", "walk"]


def import_module(name: str) -> ModuleType:
    """Import the absolute module *name*, as :func:`importlib.import_module` does.

    Without importing :mod:`importlib` itself, which selection need not pay for.
    """
    __import__(name)
    return sys.modules[name]


def _parts(text: str) -> tuple[str, ...] | None:
    parts = tuple(text.split("."))
    return parts if all(part.isidentifier() for part in parts) else None


def parse(text: str) -> tuple[str | None, tuple[str, ...]] | None:
    """Split a reference into ``(module, attributes)``, importing nothing.

    The colon form gives ``("pkg.mod", ("Outer", "attr"))``; the dotted form
    gives ``(None, ("pkg", "mod", "Outer", "attr"))`` and needs at least two
    parts. Surrounding whitespace is ignored.

    Returns:
        The parts, or ``None`` when *text* is malformed (an empty part, a
        part that is not an identifier, an empty module or attribute path).
    """
    module, colon, rest = text.strip().partition(":")
    if colon:
        module_parts, attrs = _parts(module), _parts(rest)
        if module_parts is None or attrs is None:
            return None
        return ".".join(module_parts), attrs
    parts = _parts(module)
    if parts is None or len(parts) < 2:
        return None
    return None, parts


def _import(name: str, wrap: Wrap | None) -> ModuleType:
    try:
        return import_module(name)
    except Exception as exc:
        if wrap is None:
            raise
        raise wrap(name, exc) from exc


def _submodule(module: ModuleType, part: str, wrap: Wrap | None) -> ModuleType | None:
    """Import ``module.part`` if it is a submodule; ``None`` if there is no such module."""
    full = f"{module.__name__}.{part}"
    existing = sys.modules.get(full)
    if isinstance(existing, ModuleType):
        return existing
    if not hasattr(module, "__path__"):
        return None
    try:
        return import_module(full)
    except Exception as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name == full:
            return None
        if wrap is None:
            raise
        raise wrap(full, exc) from exc


def import_module_part(
    module: str | None, attrs: Sequence[str], *, wrap: Wrap | None = None
) -> tuple[ModuleType, tuple[str, ...]]:
    """Import the module a reference names; return it and the attributes left to walk.

    Args:
        module: The module of the colon form, or ``None`` for the dotted form.
        attrs: The attribute path (colon form) or every dotted part.
        wrap: Turns ``(module name, exception)`` into the exception to raise
            when importing a module fails; by default the error propagates
            unchanged.
    """
    if module is not None:
        return _import(module, wrap), tuple(attrs)
    found = _import(attrs[0], wrap)
    index = 1
    while index < len(attrs) - 1:
        part = attrs[index]
        value = found.__dict__.get(part)
        if value is not None and not isinstance(value, ModuleType):
            break  # an attribute of the module, not a submodule
        submodule = _submodule(found, part, wrap)
        if submodule is None:
            break
        found = submodule
        index += 1
    return found, tuple(attrs[index:])


def walk(target: object, attrs: Sequence[str]) -> object:
    """Return ``target.a.b...`` for *attrs* ``("a", "b", ...)`` (``AttributeError`` propagates)."""
    for part in attrs:
        target = getattr(target, part)
    return target


def resolve_parts(module: str | None, attrs: Sequence[str]) -> object:
    """Import and return the object ``(module, attrs)`` names (see :func:`import_module_part`)."""
    found, rest = import_module_part(module, attrs)
    return walk(found, rest)


def resolve(text: str, *, what: str = "reference") -> object:
    """Import and return the object *text* names, in either form.

    Args:
        text: ``"pkg.mod:Outer.attr"`` or ``"pkg.mod.Outer.attr"``.
        what: What *text* is, for the malformed-syntax message.

    Raises:
        ValueError: *text* is malformed (see :func:`parse`).
        ImportError: The module cannot be imported (also raised from inside
            an existing module).
        AttributeError: The module lacks an attribute on the path.
    """
    parsed = parse(text)
    if parsed is None:
        raise ValueError(
            f"malformed {what} {text!r}: expected 'pkg.mod:Outer.attr' or 'pkg.mod.Outer.attr'"
        )
    return resolve_parts(*parsed)
