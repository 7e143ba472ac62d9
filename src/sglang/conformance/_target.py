"""What the suite tests: the runtimes, their selected platforms, the serve backends.

:func:`prepare_environment` turns ``--sglang-platform`` into the selector
variables (so the suite's own subprocesses see them too);
:func:`build_targets` runs platform selection in this process, once per
runtime, and records what it chose, from which entry point and
distribution, or why it failed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from sglang.runtime.discovery import EntryPointRecord, entry_point_index
from sglang.runtime.spec import DIFFUSION, SRT, RuntimeSpec
from sglang.sdk import constants
from sglang.sdk.capabilities import Capability, declared_capabilities

__all__ = [
    "RUNTIME_SPECS",
    "Target",
    "build_targets",
    "prepare_environment",
    "serve_backend_names",
]

RUNTIME_SPECS: Mapping[str, RuntimeSpec] = {"srt": SRT, "diffusion": DIFFUSION}
"""The runtimes by their ``--sglang-runtime`` name."""

BUILTIN_CPU = "cpu"
"""The ``--sglang-platform`` value that tests the built-in CPU platforms."""


def prepare_environment(
    platform: str | None, runtimes: tuple[str, ...], environ: MutableMapping[str, str]
) -> None:
    """Set the selector variables *platform* implies for *runtimes*, in *environ*.

    ``None`` leaves selection as the environment already configures it;
    ``"cpu"`` selects the built-in CPU platforms (``SGLANG_USE_CPU_ENGINE=1``,
    no auto-discovered SRT plugin, diffusion override ``cpu``); any other
    name selects that entry point explicitly.
    """
    if platform is None:
        return
    if platform == BUILTIN_CPU:
        environ.pop(constants.ENV_PLATFORM, None)
        environ[constants.ENV_USE_CPU_ENGINE] = "1"
        if entry_point_index().group(constants.SRT_PLATFORMS_GROUP):
            environ.setdefault(constants.ENV_PLUGINS, "")  # no auto-discovered plugin wins
        environ[constants.ENV_DIFFUSION_PLATFORM_OVERRIDE] = BUILTIN_CPU
        return
    if "srt" in runtimes:
        environ[constants.ENV_PLATFORM] = platform
    if "diffusion" in runtimes:
        environ[constants.ENV_DIFFUSION_PLATFORM_OVERRIDE] = platform


@dataclass(frozen=True)
class Target:
    """One runtime's platform under test.

    Attributes:
        runtime: ``"srt"`` or ``"diffusion"``.
        spec: The runtime's table.
        platform: The selected platform instance (``None`` if selection failed).
        entry_point: The entry point that provided it, or that selection
            failed on; ``None`` for a built-in platform.
        error: Why selection failed, else ``None``.
        capabilities: What the platform declares.
    """

    runtime: str
    spec: RuntimeSpec
    platform: object | None
    entry_point: EntryPointRecord | None
    error: str | None
    capabilities: frozenset[Capability] = frozenset()

    @property
    def is_builtin(self) -> bool:
        """Whether a built-in platform was selected (no activation callback to test)."""
        return self.entry_point is None and self.error is None

    def describe(self) -> str:
        """One line for the report header."""
        if self.platform is not None:
            cls = type(self.platform)
            shown = f"{cls.__module__}.{cls.__qualname__}"
        else:
            shown = "selection failed"
        if self.entry_point is None:
            return f"{self.runtime}: {shown} (built-in)"
        record = self.entry_point
        return (
            f"{self.runtime}: {shown} from entry point {record.name!r} = {record.value} "
            f"of {record.dist_name} {record.dist_version}"
        )


def _entry_point(spec: RuntimeSpec, name: str | None) -> EntryPointRecord | None:
    if not name:
        return None
    records = entry_point_index().named(spec.platforms_group, name)
    return records[0] if records else None


def _failed_name(spec: RuntimeSpec, report: object) -> str | None:
    """The entry point selection failed on: the failed callback, else the explicit name."""
    from sglang.runtime.selection.outcome import CallbackStatus

    for outcome in getattr(report, "callbacks", ()):
        if outcome.status is CallbackStatus.FAILED:
            name: str = outcome.name
            return name
    value = os.environ.get(spec.selector_env, "").strip()
    return value if value and value.lower() not in spec.override_aliases else None


def build_target(runtime: str) -> Target:
    """Select *runtime*'s platform in this process and describe the outcome."""
    from sglang.runtime.selection import resolve_platform, selection_report

    spec = RUNTIME_SPECS[runtime]
    try:
        platform = resolve_platform(spec)
    except Exception as exc:
        report = selection_report(spec)
        record = _entry_point(spec, _failed_name(spec, report))
        return Target(runtime, spec, None, record, f"{type(exc).__name__}: {exc}")
    report = selection_report(spec)
    assert report is not None
    record = _entry_point(spec, report.platform_entry_point)
    try:
        capabilities = declared_capabilities(platform)
    except TypeError as exc:
        return Target(runtime, spec, None, record, str(exc))
    return Target(runtime, spec, platform, record, None, capabilities)


def build_targets(runtimes: tuple[str, ...]) -> dict[str, Target]:
    """Select the platform of each of *runtimes*."""
    return {runtime: build_target(runtime) for runtime in runtimes}


def serve_backend_names(requested: list[str], runtime_option: str) -> tuple[str, ...]:
    """The serve backends to test: those named, plus every installed one with ``all``.

    Installed means what ``sglang serve --model-type`` offers: the in-tree
    backends (``llm``, ``diffusion``) and every ``sglang.serve_backends``
    registration, a rejected one included (its SRV-01 says why).
    """
    names = list(dict.fromkeys(requested))
    if runtime_option == "all":
        from sglang.cli.serve._registry import read_registry

        registry = read_registry(warn=False)
        installed = [record.name for record in registry.records()]
        installed += [rejection.name for rejection in registry.rejections]
        names += [name for name in dict.fromkeys(installed) if name not in names]
    return tuple(names)
