"""Contract metadata: which platform operations the core calls, and contract versions.

The specification marks each platform operation *Active* (the core calls it
through ``current_platform``, so an out-of-tree override takes effect at
once), *Planned* (reserved: the core still calls the hardware API directly)
or *Compatibility* (a kept adapter). The tables here record that status once,
with what a default ``sglang serve`` calls; the docs render them, the
conformance suite reads them to decide what a vendor's platform must
implement, and ``sglang plugins check`` reads them to judge a platform class.

:class:`ContractVersions` records which versions of one contract (the serve
backends, each runtime's platforms, each documented hook target) a release
accepts; :data:`CONTRACT_VERSIONS` holds the platform and serve-backend ones.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

from sglang.sdk._record import Record
from sglang.sdk.constants import (
    DIFFUSION_PLATFORM_API_VERSION,
    SERVE_BACKEND_API_VERSION,
    SRT_PLATFORM_API_VERSION,
    SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS,
    SUPPORTED_SERVE_BACKEND_API_VERSIONS,
    SUPPORTED_SRT_PLATFORM_API_VERSIONS,
)

__all__ = [
    "CONTRACT_VERSIONS",
    "ContractVersions",
    "Operation",
    "OperationStatus",
    "VersionStatus",
    "operation_table",
]


class OperationStatus(enum.Enum):
    """How the core uses a platform operation."""

    ACTIVE = "active"
    """Called by the core through ``current_platform``; overrides apply now."""

    PLANNED = "planned"
    """Reserved interface; the core does not call it yet."""

    COMPATIBILITY = "compatibility"
    """Kept as an adapter for existing platforms; new platforms override its successor."""


class Operation(Record):
    """One documented platform operation.

    Attributes:
        name: The method (or attribute) name on the platform class.
        status: Whether the core calls it today.
        default: What the base class does when a platform does not override it.
        summary: One line on what the operation means.
        area: The group the operation belongs to in the docs (for example
            ``"device"`` or ``"capability"``).
        serve: When a default ``sglang serve`` of the reference runtime calls
            it: ``"always"``, a condition (``"unless --max-total-tokens is
            given"``), or ``""`` when it does not. A platform whose *default*
            raises must override every operation with a ``serve`` entry to
            serve with default flags.
    """

    name: str
    status: OperationStatus
    default: str
    summary: str
    area: str
    serve: str = ""


def operation_table(*operations: Operation) -> Mapping[str, Operation]:
    """Build a read-only ``name -> Operation`` table, rejecting repeated names."""
    table: dict[str, Operation] = {}
    for operation in operations:
        if operation.name in table:
            raise ValueError(f"operation {operation.name!r} is listed twice")
        table[operation.name] = operation
    return MappingProxyType(table)


class VersionStatus(enum.Enum):
    """How a release treats a contract version a plugin declares."""

    CURRENT = "current"
    """The version this release implements."""

    DEPRECATED = "deprecated"
    """The previous version: still accepted, for one minor release, with one WARNING."""

    UNSUPPORTED = "unsupported"
    """Not accepted: the plugin is refused (too old, too new, or not an ``int``)."""


class ContractVersions(Record):
    """The versions of one contract that a release accepts.

    Attributes:
        contract: What is versioned, for messages (``"the SRT platform contract"``).
        current: The version this release implements.
        supported: Every version this release accepts; those other than
            *current* are deprecated.
        change: What a plugin still on a deprecated version must change,
            for the deprecation WARNING (empty: see the release notes).
    """

    contract: str
    current: int
    supported: frozenset[int]
    change: str = ""

    def __post_init__(self) -> None:
        if self.current not in self.supported:
            raise ValueError(f"{self.contract}: current version {self.current} is not supported")

    @property
    def deprecated(self) -> frozenset[int]:
        """The versions still accepted with a WARNING."""
        return self.supported - {self.current}

    def status(self, declared: object) -> VersionStatus:
        """Judge *declared* (an ``int`` literal; a ``bool`` or anything else is unsupported)."""
        if type(declared) is not int or declared not in self.supported:
            return VersionStatus.UNSUPPORTED
        if declared == self.current:
            return VersionStatus.CURRENT
        return VersionStatus.DEPRECATED

    def supported_text(self) -> str:
        """The supported versions, ``"1, 2"``."""
        return ", ".join(str(version) for version in sorted(self.supported))


CONTRACT_VERSIONS: Mapping[str, ContractVersions] = MappingProxyType(
    {
        "serve-backend": ContractVersions(
            "the serve-backend API",
            SERVE_BACKEND_API_VERSION,
            SUPPORTED_SERVE_BACKEND_API_VERSIONS,
        ),
        "srt-platform": ContractVersions(
            "the SRT platform contract",
            SRT_PLATFORM_API_VERSION,
            SUPPORTED_SRT_PLATFORM_API_VERSIONS,
        ),
        "diffusion-platform": ContractVersions(
            "the diffusion platform contract",
            DIFFUSION_PLATFORM_API_VERSION,
            SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS,
        ),
    }
)
"""The serve-backend and platform contracts' versions, by key.

The keys are ``"serve-backend"``, ``"srt-platform"`` and
``"diffusion-platform"``; each documented hook target carries its own
(:attr:`sglang.sdk.targets.DocumentedTarget.versions`).
"""
