"""Hook targets: parse a target path, find what it names, classify and patch it.

A target is written in one of two forms:

* dotted, ``"pkg.mod.Cls.meth"``: the longest importable prefix is the
  module, the rest is an attribute path inside it;
* entry-point style, ``"pkg.mod:Cls.meth"`` or ``"pkg.mod:func"``: the
  part before the colon is the module.

:func:`parse_target` only checks the syntax (registration imports
nothing); :func:`locate` imports the module and walks to the attribute's
owner (a module or a class); :func:`inspect_target` classifies what the
owner holds under that name without changing anything.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from sglang.runtime import resolver

__all__ = [
    "HookTargetError",
    "HookTargetMissing",
    "Location",
    "ResolvedTarget",
    "TargetKind",
    "TargetPath",
    "inspect_target",
    "locate",
    "parse_target",
]


class HookTargetError(LookupError):
    """A target path cannot be resolved to a function, method or class."""


class HookTargetMissing(HookTargetError):
    """The target does not exist (yet): its module is not found, or an attribute is missing.

    Unlike the other resolution errors (a module raising while it is
    imported, an attribute of the wrong kind), this one can go away by
    itself, when a later import creates the module or the attribute; the
    registry retries such hooks on every ``apply_hooks()``.
    """


class TargetKind(enum.Enum):
    """What a resolved target is; decides how it is wrapped and patched."""

    FUNCTION = "function"
    """A callable attribute of a module (usually a module-level function)."""

    METHOD = "method"
    """A plain function in a class (hooks receive ``self`` first)."""

    CLASSMETHOD = "classmethod"
    """A ``classmethod`` (hooks receive ``cls`` first: the class the call was made on)."""

    STATICMETHOD = "staticmethod"
    """A ``staticmethod``."""

    CLASS = "class"
    """A class (module-level or nested): only REPLACE hooks apply."""

    @property
    def propagates_aliases(self) -> bool:
        """Whether module-level aliases of the original (``from x import f``) are rebound."""
        return self in (TargetKind.FUNCTION, TargetKind.CLASS)


@dataclass(frozen=True)
class TargetPath:
    """A syntactically valid target path; nothing imported yet.

    Attributes:
        text: The path as registered.
        module: The module named before a colon, or ``None`` for the dotted form.
        attrs: The attribute path after the colon, or every dotted part.
    """

    text: str
    module: str | None
    attrs: tuple[str, ...]

    @property
    def dotted(self) -> str:
        """The path in dotted form: ``"pkg.mod:Cls.meth"`` becomes ``"pkg.mod.Cls.meth"``."""
        if self.module is None:
            return ".".join(self.attrs)
        return ".".join((self.module, *self.attrs))

    @property
    def depth(self) -> int:
        """How many dotted parts the path has (outer objects are patched first)."""
        return self.dotted.count(".") + 1


def parse_target(text: str) -> TargetPath:
    """Check a target path's syntax and split it, importing nothing.

    Raises:
        TypeError: if *text* is not a string.
        ValueError: if *text* is not ``pkg.mod.attr[.attr...]`` or
            ``pkg.mod:attr[.attr...]``.
    """
    if not isinstance(text, str):
        raise TypeError(f"a hook target must be a str or a HookTarget, not {type(text).__name__}")
    parsed = resolver.parse(text)
    if parsed is not None:
        return TargetPath(text, *parsed)
    raise ValueError(
        f"invalid hook target {text!r}: write 'pkg.module.Class.method' (dotted) "
        "or 'pkg.module:Class.method' / 'pkg.module:function' (entry-point style)"
    )


@dataclass(frozen=True)
class Location:
    """Where a target lives: ``getattr(owner, name)``.

    Attributes:
        owner: The module or class holding the attribute.
        name: The attribute's name.
    """

    owner: object
    name: str

    @property
    def key(self) -> tuple[int, str]:
        """A hashable identity of the location (owner objects need not be hashable)."""
        return (id(self.owner), self.name)

    @property
    def qualname(self) -> str:
        """``"pkg.mod.Cls.meth"`` as the owner spells itself, for reports."""
        owner = self.owner
        if isinstance(owner, ModuleType):
            return f"{owner.__name__}.{self.name}"
        module = getattr(owner, "__module__", "?")
        qual = getattr(owner, "__qualname__", repr(owner))
        return f"{module}.{qual}.{self.name}"


def _import_error(name: str, exc: BaseException) -> HookTargetError:
    # missing: the module itself (or a parent package) is not found, not one of its imports
    missing = isinstance(exc, ModuleNotFoundError) and f"{name}.".startswith(f"{exc.name}.")
    error = HookTargetMissing if missing else HookTargetError
    return error(f"cannot import module {name!r}: {type(exc).__name__}: {exc}")


def locate(path: TargetPath) -> Location:
    """Import the target's module and return the owner of its last attribute.

    Raises:
        HookTargetError: if a module cannot be imported, an attribute on the
            way is missing, or the owner is neither a module nor a class.
    """
    owner: object
    owner, attrs = resolver.import_module_part(path.module, path.attrs, wrap=_import_error)
    for part in attrs[:-1]:
        try:
            owner = getattr(owner, part)
        except AttributeError as exc:
            what = "attribute or submodule" if isinstance(owner, ModuleType) else "attribute"
            raise HookTargetMissing(f"{_describe(owner)} has no {what} {part!r}") from exc
    if not isinstance(owner, ModuleType | type):
        raise HookTargetError(
            f"{attrs[-1]!r} must live on a module or a class, not on {_describe(owner)}"
        )
    return Location(owner, attrs[-1])


def _describe(obj: object) -> str:
    if isinstance(obj, ModuleType):
        return f"module {obj.__name__!r}"
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    return f"{type(obj).__name__} object"


@dataclass(frozen=True)
class ResolvedTarget:
    """A located target, classified; the state needed to patch and restore it.

    Attributes:
        location: Where the target lives.
        kind: What it is.
        original: The callable hooks wrap: the function (for methods, the
            plain function; for class- and static methods, ``__func__``) or
            the class.
        raw: What the owner itself holds under the name (restored on undo),
            or the inherited attribute when :attr:`own` is false.
        own: Whether the owner holds the name itself (``False``: inherited
            from a base class, or provided by a module ``__getattr__``).
        is_async: Whether :attr:`original` is an ``async def`` function.
    """

    location: Location
    kind: TargetKind
    original: Callable[..., Any]
    raw: object
    own: bool
    is_async: bool


def inspect_target(location: Location, *, inherited: bool = False) -> ResolvedTarget:
    """Classify what *location* holds now.

    Args:
        location: Where the target lives.
        inherited: For a class owner, ignore what the class itself holds and
            classify what it inherits from its bases (used to rebuild the
            chain of an inherited member after a base class's member changed).

    Raises:
        HookTargetError: if the attribute is missing or is not a function,
            method or class.
    """
    owner, name = location.owner, location.name
    if isinstance(owner, type):
        for klass in owner.__mro__[1:] if inherited else owner.__mro__:
            if name in klass.__dict__:
                raw: object = klass.__dict__[name]
                own = klass is owner
                break
        else:
            raise HookTargetMissing(f"{_describe(owner)} has no attribute {name!r}")
        if isinstance(raw, staticmethod):
            kind, original = TargetKind.STATICMETHOD, raw.__func__
        elif isinstance(raw, classmethod):
            kind, original = TargetKind.CLASSMETHOD, raw.__func__
        elif isinstance(raw, type):
            kind, original = TargetKind.CLASS, raw
        elif callable(raw):
            kind, original = TargetKind.METHOD, raw
        else:
            raise HookTargetError(
                f"{location.qualname} is a {type(raw).__name__}, not a function, method or class"
            )
    else:
        assert isinstance(owner, ModuleType)
        own = name in owner.__dict__
        try:
            raw = owner.__dict__[name] if own else getattr(owner, name)
        except AttributeError as exc:
            raise HookTargetMissing(f"{_describe(owner)} has no attribute {name!r}") from exc
        if isinstance(raw, type):
            kind, original = TargetKind.CLASS, raw
        elif callable(raw):
            kind, original = TargetKind.FUNCTION, raw
        else:
            raise HookTargetError(
                f"{location.qualname} is a {type(raw).__name__}, not a function or class"
            )
    is_async = kind is not TargetKind.CLASS and inspect.iscoroutinefunction(original)
    return ResolvedTarget(location, kind, original, raw, own, is_async)


def install(location: Location, value: object) -> None:
    """Bind *value* on the owner (on the named class itself, never on a base)."""
    setattr(location.owner, location.name, value)


def uninstall(target: ResolvedTarget) -> None:
    """Put back what the owner held before the first patch."""
    if target.own:
        setattr(target.location.owner, target.location.name, target.raw)
    elif target.location.name in target.location.owner.__dict__:
        delattr(target.location.owner, target.location.name)
