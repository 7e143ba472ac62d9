"""Turn a platform class qualname into a checked platform instance.

Activation callbacks return a qualname in either spelling,
``"pkg.mod:Class"`` or ``"pkg.mod.Class"`` (nested classes work in both).
The class must subclass the runtime's base class, declare the runtime's
``PlatformEnum.OOT`` when a plugin provides it, declare (or default to) a
platform contract version this release supports (``api_version``, see
:mod:`sglang.runtime.versions`), and be constructible without arguments.
"""

from __future__ import annotations

from sglang.runtime.resolver import resolve
from sglang.runtime.selection import errors
from sglang.runtime.selection.errors import PlatformContractError, PlatformSelectionError
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.contract import VersionStatus

__all__ = ["LOGGER_NAME", "build_platform", "check_platform_version", "import_qualname"]

LOGGER_NAME = "sglang.runtime.selection"
"""The logger selection reports to (INFO: the choice; WARNING: a failed probe, an old version)."""


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


def check_platform_version(spec: RuntimeSpec, cls: type, *, source: str, dist: str) -> None:
    """Apply the version rule to *cls*'s declared ``api_version`` (undeclared: version 1).

    Args:
        spec: The runtime.
        cls: The platform class.
        source: Who provided it, for messages.
        dist: Its distribution (``"name version"``), or a description of a built-in.

    Raises:
        PlatformContractError: The version is not one this release supports.
    """
    from sglang.runtime import versions

    declared: object = getattr(cls, "api_version", None)
    value = 1 if declared is None else declared
    key = versions.platform_key(spec.name)
    status, table = versions.judge(key, value)
    if status is VersionStatus.CURRENT:
        return
    shown = f"{cls.__module__}.{cls.__qualname__}"
    undeclared = " (no api_version in its body, so version 1)" if declared is None else ""
    who = f"{source}: platform class {shown}{undeclared}"
    literal = f"api_version: ClassVar[Literal[{table.current}]] = {table.current}"
    if status is VersionStatus.UNSUPPORTED:
        fix = (
            f"install a release of {dist} built for this sglang, or an sglang that supports "
            f"api_version={value!r} (a platform class declares the version it implements in "
            f"its body: {literal})"
        )
        reason = versions.unsupported_reason(who, value, table)
        raise PlatformContractError(f"{reason}.\nFix: {fix}.")
    assert isinstance(value, int)  # a deprecated version is a supported int
    fix = f"update the class to version {table.current} and declare {literal}"
    message = versions.deprecation_message(who, value, table, fix)
    versions.warn_deprecated(key, shown, message, logger=LOGGER_NAME)


def build_platform(
    spec: RuntimeSpec,
    qualname: str,
    *,
    source: str,
    dist_name: str | None,
    plugin: bool,
    dist: str | None = None,
    check_version: bool = True,
) -> tuple[type, object]:
    """Import, check and instantiate the platform class *qualname*.

    Args:
        spec: The runtime.
        qualname: The class reference, ``"pkg.mod:Class"`` or ``"pkg.mod.Class"``.
        source: Who provided it, for messages (``"SRT platform plugin 'x' (...)"``).
        dist_name: The providing distribution, or ``None`` for a built-in.
        plugin: Whether a plugin provides the class (then ``_enum`` must be OOT).
        dist: The providing distribution with its version, for the version
            messages (default: *dist_name*).
        check_version: Apply :func:`check_platform_version` to a plugin's class
            (``sglang plugins check`` judges the version itself, as a finding).

    Returns:
        The class and its instance.

    Raises:
        PlatformSelectionError: The class cannot be imported or its constructor raised.
        PlatformContractError: It is not a class, not a subclass of the runtime's
            base, not ``PlatformEnum.OOT`` (plugins), declares an unsupported
            ``api_version``, needs arguments, or leaves
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
        if check_version:  # built-ins implement the current contract by definition
            check_platform_version(spec, cls, source=source, dist=dist or dist_name or "?")
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
