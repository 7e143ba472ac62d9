"""Find a platform plugin's classes and judge them against the runtime's contract.

:func:`find_classes` runs the entry point's activation callback (as
selection does, hooks it registers attributed to it) and takes the class
it names; on a machine without the device the callback returns ``None``,
and the platform subclasses the distribution defines are found instead:
its modules are read (not imported) for classes derived from a platform
base, and only the modules defining one are imported (platform modules are
import-safe by contract). :func:`check_class` then reports the declared
``api_version``, overrides whose signature differs from the contract's,
methods that look like misspelt contract names, overrides of Planned
operations and the operations a default ``sglang serve`` needs that the
class leaves unimplemented. Nothing initialises a device.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

from sglang.runtime import versions
from sglang.runtime.checks.findings import CheckedClass, PluginCheck, Severity
from sglang.runtime.checks.signatures import near_miss, override_problems, signature_drift
from sglang.runtime.discovery import EntryPointRecord
from sglang.runtime.plugin_source import PluginSource, plugin_source
from sglang.runtime.selection.classes import build_platform
from sglang.runtime.selection.errors import PlatformContractError, PlatformSelectionError, who
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.contract import OperationStatus, VersionStatus

__all__ = ["check_class", "contract_methods", "find_classes", "record_source"]

_RAISE = "raise NotImplementedError"
_BASE_NAMES = frozenset({"SRTPlatform", "Platform", "DiffusionPlatform"})
"""The names the platform bases are imported under; subclasses of subclasses follow."""


def record_source(record: EntryPointRecord) -> PluginSource:
    """The plugin source hooks registered while *record* loads are attributed to."""
    return PluginSource(record.name, record.dist_name, record.dist_version, record.group)


def contract_methods(spec: RuntimeSpec) -> list[str]:
    """The public methods of *spec*'s platform base class, sorted."""
    base = spec.platform_base
    return sorted(
        name
        for name in dir(base)
        if not name.startswith("_")
        and inspect.isfunction(_unwrap(inspect.getattr_static(base, name)))
    )


def _unwrap(member: object) -> object:
    return member.__func__ if isinstance(member, classmethod | staticmethod) else member


def _failed(check: PluginCheck, subject: str, what: str, exc: BaseException) -> None:
    text = str(exc).splitlines()[0] if str(exc) else ""
    check.add(
        "plugin-failed",
        Severity.ERROR,
        subject,
        f"{what} failed: {type(exc).__name__}: {text}; repair or reinstall the distribution",
    )


def find_classes(
    spec: RuntimeSpec, record: EntryPointRecord, check: PluginCheck
) -> list[tuple[type, str]]:
    """The platform classes of *record* with how each was found (findings go to *check*)."""
    with plugin_source(record_source(record)):
        try:
            callback = record.load()
        except Exception as exc:
            _failed(check, record.value, f"importing the activation callback {record.value}", exc)
            return []
        if not callable(callback):
            check.add(
                "plugin-failed",
                Severity.ERROR,
                record.value,
                f"{record.value} is a {type(callback).__name__}, not an activation callback; "
                "point the entry point at a function 'def activate() -> str | None'",
            )
            return []
        try:
            result: object = callback()
        except Exception as exc:
            _failed(check, record.value, f"running the activation callback {record.value}", exc)
            return []
    if result is None:
        found = _distribution_classes(spec, record, check)
        if not found:
            check.add(
                "no-platform-class",
                Severity.WARNING,
                record.value,
                f"the activation callback returned None (no device here) and the distribution "
                f"defines no {spec.title} platform class in the package of {record.value}; "
                "name the class with --class module:Class",
            )
        return [(cls, "distribution") for cls in found]
    if not isinstance(result, str) or not result.strip():
        check.add(
            "plugin-failed",
            Severity.ERROR,
            record.value,
            f"the activation callback returned {result!r}; it must return the platform "
            "class's qualname ('pkg.mod:Class') or None",
        )
        return []
    cls = _build(spec, result.strip(), record, check)
    return [] if cls is None else [(cls, "callback")]


def _build(
    spec: RuntimeSpec, qualname: str, record: EntryPointRecord, check: PluginCheck
) -> type | None:
    """Import and construct *qualname* as selection would (the version is judged apart)."""
    try:
        with plugin_source(record_source(record)):
            cls, _instance = build_platform(
                spec,
                qualname,
                source=who(spec, record),
                dist_name=record.dist_name,
                plugin=True,
                check_version=False,
            )
    except (PlatformSelectionError, PlatformContractError) as exc:
        check.add("platform-contract", Severity.ERROR, qualname, str(exc))
        return None
    return cls


def _class_defs(path: Path) -> list[tuple[str, set[str]]]:
    """The top-level classes of *path* with the last names of their bases."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    found: list[tuple[str, set[str]]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = {
                base.id if isinstance(base, ast.Name) else base.attr
                for base in node.bases
                if isinstance(base, ast.Name | ast.Attribute)
            }
            found.append((node.name, bases))
    return found


def _package_modules(top: str) -> dict[str, Path]:
    """The ``module name -> file`` of top-level package (or module) *top*, unimported."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return {}
    if spec is None:
        return {}
    if not spec.submodule_search_locations:
        return {top: Path(spec.origin)} if spec.origin and spec.origin.endswith(".py") else {}
    modules: dict[str, Path] = {}
    for location in spec.submodule_search_locations:
        root = Path(location)
        for path in sorted(root.rglob("*.py")):
            parts = [top, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            modules.setdefault(".".join(parts), path)
    return modules


def _distribution_classes(
    spec: RuntimeSpec, record: EntryPointRecord, check: PluginCheck
) -> list[type]:
    """The *spec* platform classes the package of *record*'s module defines (most derived only)."""
    defs = {
        module: _class_defs(path)
        for module, path in _package_modules(record.value.split(":")[0].split(".")[0]).items()
    }
    names = set(_BASE_NAMES)
    while True:  # subclasses of the vendor's own platform bases count too
        more = {n for classes in defs.values() for n, bases in classes if bases & names} - names
        if not more:
            break
        names |= more
    found: list[type] = []
    for module_name, classes in defs.items():  # the modules defining no candidate stay unimported
        candidates = [name for name, bases in classes if bases & names]
        if not candidates:
            continue
        try:
            with plugin_source(record_source(record)):
                module = importlib.import_module(module_name)
        except Exception as exc:
            _failed(check, module_name, f"importing platform module {module_name}", exc)
            continue
        for name in candidates:
            cls = getattr(module, name, None)
            if (
                isinstance(cls, type)
                and issubclass(cls, spec.platform_base)
                and cls.__module__ == module_name
            ):
                found.append(cls)
    leaves = [cls for cls in found if not any(o is not cls and issubclass(o, cls) for o in found)]
    return [
        cls for cls in leaves if _build(spec, f"{cls.__module__}:{cls.__qualname__}", record, check)
    ]


def _version(spec: RuntimeSpec, cls: type, shown: str, check: PluginCheck) -> None:
    declared: object = getattr(cls, "api_version", None)
    key = versions.platform_key(spec.name)
    status, table = versions.judge(key, 1 if declared is None else declared)
    literal = f"api_version: ClassVar[Literal[{table.current}]] = {table.current}"
    if declared is None:
        check.add(
            "api-version-undeclared",
            Severity.WARNING,
            shown,
            f"no api_version in the class body, so it counts as version 1 of "
            f"{table.contract}; declare the version it implements: {literal}",
        )
    if status is VersionStatus.UNSUPPORTED:
        fix = f"update the class to version {table.current} and declare {literal}"
        message = versions.unsupported_message(
            "the class", 1 if declared is None else declared, table, fix
        )
        check.add("api-version-unsupported", Severity.ERROR, shown, message)
    elif status is VersionStatus.DEPRECATED:
        assert isinstance(declared, int)
        fix = f"update the class to version {table.current} and declare {literal}"
        message = versions.deprecation_message("the class", declared, table, fix)
        check.add("api-version-deprecated", Severity.WARNING, shown, message)


def _where(cls: type, name: str) -> str:
    for owner in cls.__mro__:
        if name in vars(owner):
            return f"{owner.__module__}.{owner.__qualname__}.{name}"
    return name


def _signatures(spec: RuntimeSpec, cls: type, check: PluginCheck) -> None:
    base = spec.platform_base
    for name in contract_methods(spec):
        theirs = _unwrap(inspect.getattr_static(base, name))
        mine = inspect.getattr_static(cls, name)
        if mine is inspect.getattr_static(base, name):
            continue
        subject, mine = _where(cls, name), _unwrap(mine)
        if not callable(mine):
            check.add(
                "signature-incompatible",
                Severity.ERROR,
                subject,
                f"a {type(mine).__name__}, but the contract's {name} is a method",
            )
            continue
        assert callable(theirs)
        for problem in override_problems(theirs, mine):
            check.add(
                "signature-incompatible",
                Severity.ERROR,
                subject,
                f"{problem}: calls the runtime makes with the contract's signature "
                f"fail; keep {spec.base_path}.{name}'s parameters",
            )
        for drift in signature_drift(theirs, mine):
            check.add("signature-drift", Severity.WARNING, subject, drift)


def _near_misses(spec: RuntimeSpec, cls: type, check: PluginCheck) -> None:
    contract = [name for name in dir(spec.platform_base) if not name.startswith("_")]
    for owner in cls.__mro__:
        if owner.__module__.split(".")[0] == "sglang" or owner is object:
            continue
        for name, member in vars(owner).items():
            if name.startswith("_") or not callable(_unwrap(member)) or name in contract:
                continue
            meant = near_miss(name, contract)
            if meant is not None:
                subject = f"{owner.__module__}.{owner.__qualname__}.{name}"
                check.add(
                    "near-miss-name",
                    Severity.WARNING,
                    subject,
                    f"not part of the {spec.title} platform contract but close "
                    f"to {meant}: if it is meant to override {meant}, rename it (as written, "
                    f"the base's {meant} runs)",
                )


_SERVE_SEVERITY = {"always": Severity.ERROR, "unless": Severity.WARNING, "when": Severity.NOTE}
"""How much an unimplemented operation matters, by how a default ``sglang serve`` calls it.

``always``: every start-up; ``unless FLAG is given``: with default flags;
``when ...``: depending on another answer of the platform. An operation
called only ``with FLAG`` is not needed by a default ``sglang serve``.
"""


_CONDITION = re.compile(r"when (\w+)\(\) is true")


def _condition_holds(spec: RuntimeSpec, cls: type, serve: str) -> bool:
    """Whether a ``when NAME() is true`` condition may hold: *cls* overrides ``NAME``.

    The base's answer of every such capability is ``False``, so a class that
    keeps it never reaches the operation; nothing is called to find out.
    """
    match = _CONDITION.match(serve)
    if match is None:
        return True
    name = match.group(1)
    return inspect.getattr_static(cls, name, None) is not inspect.getattr_static(
        spec.platform_base, name, None
    )


def _operations(spec: RuntimeSpec, cls: type, check: PluginCheck) -> None:
    base = spec.platform_base
    for op in spec.operations:
        mine = inspect.getattr_static(cls, op.name, None)
        overridden = mine is not inspect.getattr_static(base, op.name, None)
        subject = f"{cls.__module__}.{cls.__qualname__}.{op.name}"
        if overridden and op.status is OperationStatus.PLANNED and not op.serve:
            check.add(
                "planned-override",
                Severity.NOTE,
                subject,
                f"{op.name}() is a Planned operation: this release never calls it, so the "
                "override has no effect yet (keep it for when the operation becomes Active)",
            )
        severity = _SERVE_SEVERITY.get(op.serve.split(" ")[0]) if op.serve else None
        if severity is Severity.NOTE and not _condition_holds(spec, cls, op.serve):
            severity = None
        if not overridden and severity is not None and op.default == _RAISE:
            when = "at every start-up" if op.serve == "always" else op.serve
            check.add(
                "missing-for-serve",
                severity,
                subject,
                f"not implemented, and a default `sglang serve` calls {op.name}() {when}: the "
                f"base raises NotImplementedError there; implement it in the platform class",
            )


def check_class(spec: RuntimeSpec, cls: type, found_by: str, check: PluginCheck) -> None:
    """Judge platform class *cls* of *spec* against the contract; findings go to *check*."""
    shown = f"{cls.__module__}.{cls.__qualname__}"
    declared: object = getattr(cls, "api_version", None)
    shown_version = declared if declared is None or type(declared) is int else repr(declared)
    check.classes.append(CheckedClass(shown, found_by, shown_version))
    _version(spec, cls, shown, check)
    _signatures(spec, cls, check)
    _near_misses(spec, cls, check)
    _operations(spec, cls, check)
