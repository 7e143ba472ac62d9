"""The errors platform selection raises, and the text of each message.

Every message names the plugin (entry-point name), its distribution and
version, what failed, and the environment variable or command that fixes
it. The guide (``docs/guides/platforms.rst``) shows each message verbatim
and a test keeps the two in sync, so wording changes here must be made
there too.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.runtime.discovery import EntryPointRecord
    from sglang.runtime.selection.outcome import Selected
    from sglang.runtime.spec import RuntimeSpec

__all__ = [
    "PlatformContractError",
    "PlatformInitError",
    "PlatformSelectionError",
]


class PlatformSelectionError(RuntimeError):
    """Platform selection failed; the message says which plugin, why and how to fix it."""


class PlatformContractError(TypeError):
    """A platform plugin broke the contract: wrong callback result, class or enum."""


class PlatformInitError(RuntimeError):
    """The selected platform's ``init_backend()`` raised; startup is aborted."""


def format_exception(exc: BaseException) -> str:
    """Return ``"ExcType: message"`` (the first line of the message)."""
    text = str(exc).splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text and text[0] else type(exc).__name__


def format_traceback(exc: BaseException) -> str:
    """Return the full traceback of *exc*, as Python prints it."""
    import traceback

    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


def who(spec: RuntimeSpec, record: EntryPointRecord) -> str:
    """``SRT platform plugin 'demo' (distribution sglang-demo-platform 0.1.0)``."""
    return f"{spec.title} platform plugin {record.name!r} (distribution {record.dist})"


def who_builtin(spec: RuntimeSpec, key: str) -> str:
    """``built-in SRT platform 'cuda'``."""
    return f"built-in {spec.title} platform {key!r}"


def _names(names: Iterable[str]) -> str:
    listed = sorted(set(names))
    return ", ".join(listed) if listed else "(none)"


def _unset(spec: RuntimeSpec) -> str:
    return f"unset {spec.selector_env} to select the platform automatically"


def not_found(spec: RuntimeSpec, name: str, installed: Iterable[str]) -> str:
    """The selector names no installed entry point (nor a built-in alias)."""
    builtin = " and no built-in platform" if spec.override_aliases else ""
    lines = [
        f"{spec.selector_env}={name!r} names no installed {spec.title} platform plugin{builtin}.",
        f"Installed {spec.title} platform plugins (entry-point group "
        f"{spec.platforms_group!r}): {_names(installed)}.",
    ]
    if spec.override_aliases:
        lines.append(f"Built-in platforms selectable by name: {_names(spec.override_aliases)}.")
    key = name.lower()
    if key in spec.auto_only_builtins:
        title = spec.builtin(key).title
        lines.append(
            f"The built-in {key!r} platform is detected automatically and cannot be "
            f"selected by name."
        )
        lines.append(
            f"Fix: unset {spec.selector_env} so that {title} is detected automatically, "
            f"or set it to one of the names above."
        )
    else:
        lines.append(
            f"Fix: install the plugin's distribution (pip install <distribution>) and restart "
            f"Python, set {spec.selector_env} to one of the names above, or {_unset(spec)}."
        )
    return "\n".join(lines)


def reserved_names(spec: RuntimeSpec, records: Sequence[EntryPointRecord]) -> str:
    """Platform entry points are named like built-in platforms (diffusion)."""
    lines = [
        f"{who(spec, record)}: the name {record.name!r} is reserved for the built-in "
        f"platforms ({_names(spec.reserved_names)}, in any case), so the plugin could never "
        f"be selected by name."
        for record in records
    ]
    dists = " ".join(sorted({record.dist_name for record in records}))
    lines.append(
        "Nothing has been imported. Fix: the plugin must use another entry-point name "
        f"in its group {spec.platforms_group!r} (ask its vendor), or uninstall it "
        f"(pip uninstall {dists})."
    )
    return "\n".join(lines)


def hardware_unavailable(spec: RuntimeSpec, record: EntryPointRecord) -> str:
    """An explicitly selected plugin's callback returned ``None``."""
    return (
        f"{who(spec, record)} reports that its hardware is unavailable: its activation "
        f"callback {record.value} returned None, and {spec.selector_env}={record.name} "
        f"selects it explicitly, so there is no fallback.\n"
        f"Fix: check that the device and its driver are present (see the plugin's "
        f"documentation), or {_unset(spec)}."
    )


def duplicates(spec: RuntimeSpec, conflicts: Mapping[str, Sequence[EntryPointRecord]]) -> str:
    """Two or more distributions declare the same entry-point name."""
    lines = []
    for name, records in conflicts.items():
        owners = ", ".join(f"{record.dist} ({record.value})" for record in records)
        lines.append(
            f"{spec.title} platform plugin name {name!r} is declared by more than one "
            f"distribution: {owners}."
        )
    lines.append(
        "Entry-point names must be unique; nothing has been imported. "
        "Fix: uninstall all but one of them (pip uninstall <distribution>)."
    )
    return "\n".join(lines)


def many_activated(spec: RuntimeSpec, activated: Sequence[tuple[EntryPointRecord, str]]) -> str:
    """Auto discovery activated more than one plugin."""
    listed = ", ".join(
        f"{record.name!r} (distribution {record.dist}) -> {qualname}"
        for record, qualname in activated
    )
    return (
        f"More than one {spec.title} platform plugin activated: {listed}. "
        f"Only one out-of-tree platform can run per process.\n"
        f"Fix: set {spec.selector_env} to one of: "
        f"{', '.join(record.name for record, _ in activated)}."
    )


def callback_failed(
    spec: RuntimeSpec, record: EntryPointRecord, phase: str, exc: BaseException
) -> str:
    """Importing or running an activation callback raised."""
    return (
        f"{who(spec, record)} failed while {phase} its activation callback {record.value}: "
        f"{format_exception(exc)}\n"
        f"Startup is aborted: a broken platform plugin never falls back to a built-in platform.\n"
        f"Fix: repair or reinstall the distribution (pip install --force-reinstall "
        f"{record.dist_name}), uninstall it (pip uninstall {record.dist_name}), or select "
        f"another platform with {spec.selector_env}.\n"
        f"{format_traceback(exc)}"
    )


def not_callable(spec: RuntimeSpec, record: EntryPointRecord, target: object) -> str:
    """The entry point does not name a callable."""
    return (
        f"{who(spec, record)}: entry point {record.value!r} is a "
        f"{type(target).__name__}, not an activation callback.\n"
        f"Fix: point the entry point at a function 'def activate() -> str | None', or "
        f"uninstall the distribution (pip uninstall {record.dist_name})."
    )


def bad_result(spec: RuntimeSpec, record: EntryPointRecord, result: object) -> str:
    """A callback returned something other than a non-empty ``str`` or ``None``."""
    return (
        f"{who(spec, record)}: activation callback {record.value} returned {result!r} "
        f"({type(result).__name__}); it must return a non-empty str (the platform class "
        f"qualname, 'pkg.mod:Class' or 'pkg.mod.Class') or None when its hardware is "
        f"unavailable.\n"
        f"Fix: correct the plugin's activation callback, or uninstall the distribution "
        f"(pip uninstall {record.dist_name})."
    )


def _class_fix(dist_name: str | None) -> str:
    if dist_name is None:
        return "Fix: reinstall sglang (pip install --force-reinstall sglang)."
    return (
        f"Fix: correct the plugin's platform class, or uninstall the distribution "
        f"(pip uninstall {dist_name})."
    )


def class_import_failed(
    source: str, qualname: str, exc: BaseException, dist_name: str | None
) -> str:
    """The qualname a callback returned cannot be imported."""
    return (
        f"{source}: cannot import platform class {qualname!r}: {format_exception(exc)}\n"
        f"{_class_fix(dist_name)}\n"
        f"{format_traceback(exc)}"
    )


def not_a_class(source: str, qualname: str, target: object, dist_name: str | None) -> str:
    """The qualname resolves to something that is not a class."""
    return (
        f"{source}: {qualname!r} is a {type(target).__name__}, not a platform class.\n"
        f"{_class_fix(dist_name)}"
    )


def not_subclass(spec: RuntimeSpec, source: str, qualname: str, dist_name: str | None) -> str:
    """The platform class does not derive from the runtime's base class."""
    return (
        f"{source}: platform class {qualname} does not subclass {spec.base_path} "
        f"(SRT and diffusion need separate platform classes).\n"
        f"{_class_fix(dist_name)}"
    )


def wrong_enum(
    spec: RuntimeSpec, source: str, qualname: str, found: object, dist_name: str | None
) -> str:
    """A plugin's platform class does not declare the runtime's ``PlatformEnum.OOT``."""
    shown = repr(found)
    if isinstance(found, enum.Enum):
        shown = f"{type(found).__module__}.{type(found).__qualname__}.{found.name}"
        if found.name == "OOT":
            shown += " (the OOT member of another runtime's PlatformEnum)"
    return (
        f"{source}: platform class {qualname} declares _enum = {shown}; a platform plugin "
        f"must declare _enum = PlatformEnum.OOT of {spec.enum_path} (each runtime has its "
        f"own PlatformEnum).\n"
        f"{_class_fix(dist_name)}"
    )


def empty_identity(
    spec: RuntimeSpec,
    source: str,
    qualname: str,
    attribute: str,
    value: object,
    dist_name: str | None,
) -> str:
    """The platform class leaves an identity attribute empty."""
    required = " and ".join(spec.identity_attributes)
    return (
        f"{source}: platform class {qualname} has an empty {attribute} ({value!r}); every "
        f"{spec.title} platform must set {required} to non-empty strings before it can "
        f"become current_platform.\n"
        f"{_class_fix(dist_name)}"
    )


def needs_arguments(source: str, qualname: str, exc: BaseException, dist_name: str | None) -> str:
    """The platform class cannot be constructed without arguments."""
    return (
        f"{source}: platform class {qualname} must be constructible without arguments, "
        f"but {qualname}() raised {format_exception(exc)}\n"
        f"{_class_fix(dist_name)}"
    )


def construction_failed(
    source: str, qualname: str, exc: BaseException, dist_name: str | None
) -> str:
    """The platform class's constructor raised."""
    return (
        f"{source}: constructing platform class {qualname} raised {format_exception(exc)}\n"
        f"Startup is aborted.\n"
        f"{_class_fix(dist_name)}\n"
        f"{format_traceback(exc)}"
    )


def reentrant(spec: RuntimeSpec, source: str) -> str:
    """Code running during selection accessed ``current_platform``."""
    return (
        f"{source} accessed {spec.current_platform_path}.current_platform while the "
        f"{spec.title} platform was being selected. Activation callbacks must not access "
        f"current_platform or initialise runtime or device state.\n"
        f"Fix: return the platform class qualname from the callback and move setup into the "
        f"platform's init_backend()."
    )


def probe_failed(spec: RuntimeSpec, exc: BaseException) -> str:
    """Importing torch to probe the built-in platforms' hardware raised."""
    skips = []
    if spec.cpu_engine_env is not None and spec.cpu_engine_builtin is not None:
        title = spec.builtin(spec.cpu_engine_builtin).title
        skips.append(f"set {spec.cpu_engine_env}=1 to use the {title} platform")
    if spec.override_aliases:
        skips.append(
            f"set {spec.selector_env} to a built-in platform ({_names(spec.override_aliases)}) "
            f"or a platform plugin's name"
        )
    else:
        skips.append(f"set {spec.selector_env} to a platform plugin's name")
    return (
        f"No {spec.title} platform plugin activated, so the built-in platforms' hardware must "
        f"be probed, but importing torch failed: {format_exception(exc)}\n"
        f"Fix: repair the torch installation (pip install --force-reinstall torch), or skip "
        f"probing: {', or '.join(skips)}.\n"
        f"{format_traceback(exc)}"
    )


def init_failed(spec: RuntimeSpec, qualname: str, selected: Selected, exc: BaseException) -> str:
    """The selected platform's ``init_backend()`` raised."""
    if selected.dist is None:
        source = "built-in"
        fix = (
            f"Fix: repair the platform's init_backend(), or select another platform with "
            f"{spec.selector_env}."
        )
    else:
        source = f"distribution {selected.dist}"
        fix = (
            f"Fix: repair the init_backend() of {spec.title} platform plugin "
            f"{selected.entry_point!r} (pip install --force-reinstall {selected.dist_name}), "
            f"uninstall it (pip uninstall {selected.dist_name}), or select another platform "
            f"with {spec.selector_env}."
        )
    return (
        f"init_backend() of the {spec.title} platform {qualname} ({source}) failed: "
        f"{format_exception(exc)}\n"
        f"Startup is aborted, and initialisation is not retried in this process because "
        f"backend side effects cannot be rolled back.\n"
        f"{fix}\n"
        f"{format_traceback(exc)}"
    )
