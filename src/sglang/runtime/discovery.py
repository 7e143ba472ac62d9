"""One scan of installed distributions' entry points per process.

:func:`entry_point_index` reads the entry-point metadata of every
distribution on ``sys.path`` once and serves every group of both runtimes
and the serve backends from that single pass. Nothing is imported by the
scan: each :class:`EntryPointRecord` carries the entry point's group, name
and value and the name and version of the distribution that declared it,
and imports its target only when :meth:`EntryPointRecord.load` is called.

The index is rebuilt when ``sys.path`` changes, or on :func:`refresh`.
Like :mod:`importlib.metadata`, the first distribution of a given
(normalised) name along ``sys.path`` shadows later ones.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from email.parser import HeaderParser
from types import MappingProxyType

__all__ = [
    "EntryPointIndex",
    "EntryPointRecord",
    "entry_point_index",
    "refresh",
]

_NAME_NORMALIZER = re.compile(r"[-_.]+")
_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def normalize_dist_name(name: str) -> str:
    """Return the PEP 503 normalised form of a distribution name."""
    return _NAME_NORMALIZER.sub("-", name).lower()


@dataclass(frozen=True)
class EntryPointRecord:
    """One entry point, as declared in a distribution's metadata.

    Attributes:
        group: The entry-point group, for example ``"sglang.srt.platforms"``.
        name: The entry point's name within the group.
        value: The object reference, ``"pkg.mod:attr"`` or ``"pkg.mod"``.
        dist_name: The declaring distribution's name, as it spells it.
        dist_version: The declaring distribution's version.
    """

    group: str
    name: str
    value: str
    dist_name: str
    dist_version: str

    @property
    def module(self) -> str:
        """The module part of :attr:`value`."""
        return self.value.partition(":")[0].strip()

    @property
    def attr(self) -> str:
        """The attribute path after the colon of :attr:`value` (may be empty)."""
        attr = self.value.partition(":")[2]
        return attr.split("[", 1)[0].strip()

    @property
    def dist(self) -> str:
        """``"name version"`` of the declaring distribution, for messages."""
        return f"{self.dist_name} {self.dist_version}"

    def load(self) -> object:
        """Import the module and return the referenced object."""
        target: object = importlib.import_module(self.module)
        for part in filter(None, self.attr.split(".")):
            target = getattr(target, part)
        return target


class EntryPointIndex:
    """Every entry point of every distribution on one ``sys.path``, by group."""

    def __init__(self, records: Iterable[EntryPointRecord]) -> None:
        by_group: dict[str, list[EntryPointRecord]] = {}
        for record in records:
            by_group.setdefault(record.group, []).append(record)
        self._by_group: Mapping[str, tuple[EntryPointRecord, ...]] = MappingProxyType(
            {group: tuple(items) for group, items in by_group.items()}
        )

    def group(self, group: str) -> tuple[EntryPointRecord, ...]:
        """Return the records of *group*, in ``sys.path`` order (duplicates kept)."""
        return self._by_group.get(group, ())

    def named(self, group: str, name: str) -> tuple[EntryPointRecord, ...]:
        """Return every record of *group* called *name* (more than one is a conflict)."""
        return tuple(record for record in self.group(group) if record.name == name)

    def groups(self) -> tuple[str, ...]:
        """Return the groups that have at least one entry point."""
        return tuple(self._by_group)

    def __iter__(self) -> Iterator[EntryPointRecord]:
        for records in self._by_group.values():
            yield from records

    def __len__(self) -> int:
        return sum(len(records) for records in self._by_group.values())


def _parse_entry_points(text: str) -> Iterator[tuple[str, str, str]]:
    """Yield ``(group, name, value)`` from an ``entry_points.txt`` (INI) text."""
    group: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            group = line[1:-1].strip()
            continue
        name, sep, value = line.partition("=")
        if group is not None and sep:
            yield group, name.strip(), value.strip()


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _name_and_version(directory: str, entry: str) -> tuple[str, str] | None:
    """Return the distribution's name and version, from the folder name if it has both."""
    stem = entry[: -len(".dist-info")] if entry.endswith(".dist-info") else entry[:-9]
    name, sep, version = stem.partition("-")
    if sep and version and "-" not in version:
        return name, version
    for metadata_file in ("METADATA", "PKG-INFO"):
        text = _read_text(os.path.join(directory, entry, metadata_file))
        if text is not None:
            headers = HeaderParser().parsestr(text, headersonly=True)
            if headers.get("Name"):
                return str(headers["Name"]), str(headers.get("Version", "0"))
    return None


def _scan_directory(directory: str, seen: set[str], out: list[EntryPointRecord]) -> None:
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return
    for entry in entries:
        if not entry.endswith(_METADATA_SUFFIXES):
            continue
        identity = _name_and_version(directory, entry)
        if identity is None:
            continue
        dist_name, dist_version = identity
        key = normalize_dist_name(dist_name)
        if key in seen:
            continue
        seen.add(key)
        text = _read_text(os.path.join(directory, entry, "entry_points.txt"))
        if text is None:
            continue
        for group, name, value in _parse_entry_points(text):
            out.append(EntryPointRecord(group, name, value, dist_name, dist_version))


def _scan_archive(path: str, seen: set[str], out: list[EntryPointRecord]) -> None:
    """Scan a zip (or other non-directory) ``sys.path`` entry via importlib.metadata."""
    for dist in importlib.metadata.distributions(path=[path]):
        dist_name = dist.metadata["Name"]
        if not dist_name:
            continue
        key = normalize_dist_name(dist_name)
        if key in seen:
            continue
        seen.add(key)
        for ep in dist.entry_points:
            out.append(EntryPointRecord(ep.group, ep.name, ep.value, dist_name, dist.version))


def scan(path: Iterable[str]) -> EntryPointIndex:
    """Read the entry points of every distribution on *path*, importing nothing."""
    seen: set[str] = set()
    records: list[EntryPointRecord] = []
    for entry in path:
        directory = entry or "."
        if os.path.isdir(directory):
            _scan_directory(directory, seen, records)
        elif os.path.isfile(directory):
            _scan_archive(directory, seen, records)
    return EntryPointIndex(records)


_lock = threading.Lock()
_cached: tuple[tuple[str, ...], EntryPointIndex] | None = None


def entry_point_index() -> EntryPointIndex:
    """Return the process's entry-point index, scanning only if ``sys.path`` changed."""
    global _cached
    key = tuple(sys.path)
    cached = _cached
    if cached is not None and cached[0] == key:
        return cached[1]
    with _lock:
        cached = _cached
        if cached is not None and cached[0] == key:
            return cached[1]
        index = scan(key)
        _cached = (key, index)
        return index


def refresh() -> EntryPointIndex:
    """Forget the cached index and scan again (after installing a package in-process)."""
    global _cached
    with _lock:
        _cached = None
    return entry_point_index()
