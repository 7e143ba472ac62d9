"""Contract metadata: which platform operations the core calls, as data.

The specification marks each platform operation *Active* (the core calls it
through ``current_platform``, so an out-of-tree override takes effect at
once), *Planned* (reserved: the core still calls the hardware API directly)
or *Compatibility* (a kept adapter). The tables here record that status once;
the docs render them and the conformance suite reads them to decide what a
vendor's platform must implement.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

from sglang.sdk._record import Record

__all__ = ["Operation", "OperationStatus", "operation_table"]


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
    """

    name: str
    status: OperationStatus
    default: str
    summary: str
    area: str


def operation_table(*operations: Operation) -> Mapping[str, Operation]:
    """Build a read-only ``name -> Operation`` table, rejecting repeated names."""
    table: dict[str, Operation] = {}
    for operation in operations:
        if operation.name in table:
            raise ValueError(f"operation {operation.name!r} is listed twice")
        table[operation.name] = operation
    return MappingProxyType(table)
