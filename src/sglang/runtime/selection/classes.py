"""Turn a platform class qualname into a checked platform instance.

Activation callbacks return a qualname in either spelling,
``"pkg.mod:Class"`` or ``"pkg.mod.Class"`` (nested classes work in both).
The class must subclass the runtime's base class, declare the runtime's
``PlatformEnum.OOT`` when a plugin provides it, and be constructible
without arguments.
"""

from __future__ import annotations

from sglang.runtime.resolver import resolve
from sglang.runtime.selection import errors
from sglang.runtime.selection.errors import PlatformContractError, PlatformSelectionError
from sglang.runtime.spec import RuntimeSpec

__all__ = ["build_platform", "import_qualname"]


def import_qualname(qualname: str) -> object:
    """Import and return the object *qualname* names.

    ``"pkg.mod:Outer.Inner"`` imports ``pkg.mod`` and walks the attributes;
    ``"pkg.mod.Outer.Inner"`` imports the deepest module prefix, then walks
    the rest (the rules of :mod:`sglang.runtime.resolver`). An import error
    raised *inside* an existing module propagates unchanged.

    Raises:
        ImportError: No prefix of *qualname* is an importable module.
        AttributeError: The module lacks the named attribute.
        ValueError: *qualname* is empty or malformed.
    """
    return resolve(qualname, what="qualname")


def _required_parameters(cls: type) -> list[str]:
    """Names of the constructor parameters that have no default (an error path only)."""
    import inspect

    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return []
    return [
        name
        for name, parameter in signature.parameters.items()
        if parameter.default is inspect.Parameter.empty
        and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
    ]


def build_platform(
    spec: RuntimeSpec, qualname: str, *, source: str, dist_name: str | None, plugin: bool
) -> tuple[type, object]:
    """Import, check and instantiate the platform class *qualname*.

    Args:
        spec: The runtime.
        qualname: The class reference, ``"pkg.mod:Class"`` or ``"pkg.mod.Class"``.
        source: Who provided it, for messages (``"SRT platform plugin 'x' (...)"``).
        dist_name: The providing distribution, or ``None`` for a built-in.
        plugin: Whether a plugin provides the class (then ``_enum`` must be OOT).

    Returns:
        The class and its instance.

    Raises:
        PlatformSelectionError: The class cannot be imported or its constructor raised.
        PlatformContractError: It is not a class, not a subclass of the runtime's
            base, not ``PlatformEnum.OOT`` (plugins), needs arguments, or leaves
            one of the runtime's identity attributes (diffusion: ``device_name``,
            ``device_type``) empty.
    """
    try:
        target = import_qualname(qualname)
    except Exception as exc:
        raise PlatformSelectionError(
            errors.class_import_failed(source, qualname, exc, dist_name)
        ) from exc
    if not isinstance(target, type):
        raise PlatformContractError(errors.not_a_class(source, qualname, target, dist_name))
    cls: type = target
    shown = f"{cls.__module__}.{cls.__qualname__}"
    if not issubclass(cls, spec.platform_base):
        raise PlatformContractError(errors.not_subclass(spec, source, shown, dist_name))
    if plugin:
        found = getattr(cls, "_enum", None)
        if found is not spec.oot_enum:
            raise PlatformContractError(errors.wrong_enum(spec, source, shown, found, dist_name))
    try:
        instance = cls()
    except TypeError as exc:
        # inspect.signature is slow (it may compile a regex): error path only
        if _required_parameters(cls):
            raise PlatformContractError(
                errors.needs_arguments(source, shown, exc, dist_name)
            ) from exc
        raise PlatformSelectionError(
            errors.construction_failed(source, shown, exc, dist_name)
        ) from exc
    except Exception as exc:
        raise PlatformSelectionError(
            errors.construction_failed(source, shown, exc, dist_name)
        ) from exc
    for attribute in spec.identity_attributes:
        value = getattr(instance, attribute, None)
        if not isinstance(value, str) or not value.strip():
            raise PlatformContractError(
                errors.empty_identity(spec, source, shown, attribute, value, dist_name)
            )
    return cls, instance
