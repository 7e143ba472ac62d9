"""The ``SGLANG_PLUGINS`` allowlist as both readers see it, with one warning.

Platform selection (SRT auto mode) and the plugin loader (both runtimes)
read the same variable. :func:`read_allowlist` parses it and, when it is set
but allows nothing that is installed (``""``, ``",,,"`` or only unknown
names), logs one WARNING per process on the ``sglang.plugins`` logger
saying what it filtered out, whichever reader comes first.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from sglang.runtime.environment import parse_allowlist

if TYPE_CHECKING:
    from sglang.runtime.discovery import EntryPointIndex

__all__ = ["read_allowlist"]

_warned: set[tuple[str, str]] = set()
_lock = threading.Lock()


def read_allowlist(
    name: str, environ: Mapping[str, str], index: EntryPointIndex
) -> frozenset[str] | None:
    """Return the allowlist variable *name*'s names (``None``: unset, everything allowed).

    Warns once per process and value when the variable allows no installed
    entry point of the groups it filters.
    """
    value = environ.get(name)
    allowed = parse_allowlist(value)
    if allowed is None or value is None:
        return allowed
    groups = _filtered_groups(name)
    if any(record.name in allowed for group, _ in groups for record in index.group(group)):
        return allowed
    with _lock:
        if (name, value) in _warned:
            return allowed
        _warned.add((name, value))
    _warn(name, value, allowed, groups, index)
    return allowed


def _filtered_groups(name: str) -> list[tuple[str, str]]:
    """``(group, kind)`` of every entry-point group the variable *name* filters."""
    from sglang.runtime.spec import DIFFUSION, SRT

    groups = [
        (spec.plugins_group, "general") for spec in (SRT, DIFFUSION) if spec.plugins_env == name
    ]
    groups += [
        (spec.platforms_group, "platform")
        for spec in (SRT, DIFFUSION)
        if spec.auto_allowlist_env == name
    ]
    return groups


def _warn(
    name: str,
    value: str,
    allowed: frozenset[str],
    groups: list[tuple[str, str]],
    index: EntryPointIndex,
) -> None:
    import logging

    from sglang.runtime.plugin_source import PLUGINS_LOGGER

    def listing(kind: str) -> str:
        parts = []
        for group, group_kind in groups:
            if group_kind == kind:
                names = sorted({record.name for record in index.group(group)})
                parts.append(f"{group}: {', '.join(names) or '(none installed)'}")
        return "; ".join(parts)

    what = (
        f"names no installed plugin ({', '.join(sorted(allowed))})"
        if allowed
        else "is set but names no plugin"
    )
    logging.getLogger(PLUGINS_LOGGER).warning(
        "%s=%r %s, so it filters out every general plugin (%s) and, while the SRT "
        "platform is selected automatically, every platform plugin (%s). An allowlist "
        "that allows nothing installed disables every general plugin and, in SRT auto "
        "mode, every platform plugin. Fix: unset %s to allow every plugin, or set it "
        "to entry-point names from these lists.",
        name,
        value,
        what,
        listing("general"),
        listing("platform"),
        name,
    )
