"""One scan of installed distributions' entry points per process.

:func:`entry_point_index` reads the entry-point metadata of every
distribution on ``sys.path`` once and serves every group of both runtimes
and the serve backends from that single pass. Nothing is imported by the
scan: each :class:`EntryPointRecord` carries the entry point's group, name
and value and the name and version of the distribution that declared it,
and imports its target only when :meth:`EntryPointRecord.load` is called.

The index is rebuilt when ``sys.path`` changes (or the working directory,
while ``sys.path`` holds a relative entry such as ``''``), and on
:func:`refresh`. Installing a package into the running interpreter does not
change ``sys.path``: call :func:`refresh` afterwards, or restart Python.

The result matches :func:`importlib.metadata.entry_points` for path-based
distributions, with these deliberate differences:

* Like :mod:`importlib.metadata`, the first distribution of a given
  normalised name along ``sys.path`` shadows later ones. When one folder
  holds two metadata folders of the same distribution (a stale leftover),
  the first in sorted order wins; :mod:`importlib.metadata` takes the first
  in ``os.listdir`` order, which the file system decides.
* Lines of ``entry_points.txt`` without ``=`` and lines starting with
  ``;`` are skipped (``configparser`` semantics); :mod:`importlib.metadata`
  raises on the former.
* Undecodable bytes in metadata are replaced, not raised.
* A distribution whose ``METADATA`` lacks ``Name`` or ``Version`` is
  reported with the name and version from its folder name (or
  ``"unknown"``) instead of ``None``.
* Only distributions found on ``sys.path`` are seen; distributions that a
  custom ``sys.meta_path`` finder provides without any file on
  ``sys.path`` are not.
"""

from __future__ import annotations

import _thread
import os
import sys
from collections.abc import Iterable, Iterator

from sglang.runtime.resolver import resolve_parts
from sglang.sdk._record import Record

__all__ = [
    "EntryPointIndex",
    "EntryPointRecord",
    "duplicate_names",
    "entry_point_index",
    "normalize_dist_name",
    "refresh",
    "scan",
]

_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_UNKNOWN_VERSION = "unknown"


def normalize_dist_name(name: str) -> str:
    """Return the PEP 503 normalised form of a distribution name.

    ``"My_Plugin.ext"`` and ``"my-plugin-ext"`` both become ``"my-plugin-ext"``;
    two names are the same distribution exactly when their normal forms match.
    """
    dashed = name.replace("_", "-").replace(".", "-")
    while "--" in dashed:
        dashed = dashed.replace("--", "-")
    return dashed.lower()


class EntryPointRecord(Record):
    """One entry point, as declared in a distribution's metadata.

    Attributes:
        group: The entry-point group, for example ``"sglang.srt.platforms"``.
        name: The entry point's name within the group.
        value: The object reference, ``"pkg.mod:attr"`` or ``"pkg.mod"``,
            possibly followed by extras (``"pkg.mod:attr [extra]"``).
        dist_name: The declaring distribution's name as its ``METADATA``
            spells it (``Name:``), for example ``"sglang-demo-platform"``.
        dist_version: The declaring distribution's version (``Version:``).
    """

    group: str
    name: str
    value: str
    dist_name: str
    dist_version: str

    @property
    def module(self) -> str:
        """The module part of :attr:`value` (``"pkg.mod"``), without extras."""
        return self.value.partition(":")[0].split("[", 1)[0].strip()

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
        """Import :attr:`module` and return the object :attr:`attr` names in it.

        ``"pkg.mod"`` returns the module, ``"pkg.mod:attr"`` its attribute and
        ``"pkg.mod:outer.inner"`` walks the dotted path. Import errors and
        missing attributes propagate unchanged (the rules of
        :mod:`sglang.runtime.resolver`); callers add the plugin's
        name and distribution to the message.
        """
        return resolve_parts(self.module, [part for part in self.attr.split(".") if part])


def duplicate_names(
    records: Iterable[EntryPointRecord],
) -> dict[str, list[EntryPointRecord]]:
    """Return every entry-point name that more than one of *records* declares.

    Within one group such a name is ambiguous: selectors and allowlists name
    entry points, so they cannot tell the declarations apart.
    """
    by_name: dict[str, list[EntryPointRecord]] = {}
    for record in records:
        by_name.setdefault(record.name, []).append(record)
    return {name: items for name, items in by_name.items() if len(items) > 1}


# group -> [(name, value, dist_name, dist_version)], before records are built
_RawIndex = dict[str, list[tuple[str, str, str, str]]]


class EntryPointIndex:
    """Every entry point of every distribution on one ``sys.path``, by group.

    Records are kept in ``sys.path`` order, and within one folder in sorted
    order of the metadata folder names. Duplicates are kept: when two
    distributions declare the same name in one group, :meth:`named` returns
    both, which is how platform selection detects conflicts.

    Args:
        records: The records to index.
    """

    def __init__(self, records: Iterable[EntryPointRecord] = ()) -> None:
        raw: _RawIndex = {}
        for record in records:
            raw.setdefault(record.group, []).append(
                (record.name, record.value, record.dist_name, record.dist_version)
            )
        self._raw = raw
        self._built: dict[str, tuple[EntryPointRecord, ...]] = {}

    @classmethod
    def _from_raw(cls, raw: _RawIndex) -> EntryPointIndex:
        index = cls()
        index._raw = raw
        return index

    def group(self, group: str) -> tuple[EntryPointRecord, ...]:
        """Return the records of *group*, in ``sys.path`` order (duplicates kept)."""
        built = self._built.get(group)
        if built is not None:
            return built
        items = self._raw.get(group, ())
        records = tuple(EntryPointRecord(group, *item) for item in items)
        # setdefault is atomic: concurrent first lookups agree on one tuple
        return self._built.setdefault(group, records)

    def named(self, group: str, name: str) -> tuple[EntryPointRecord, ...]:
        """Return every record of *group* called *name* (more than one is a conflict)."""
        return tuple(record for record in self.group(group) if record.name == name)

    def groups(self) -> tuple[str, ...]:
        """Return the groups that have at least one entry point."""
        return tuple(self._raw)

    def __iter__(self) -> Iterator[EntryPointRecord]:
        for group in self._raw:
            yield from self.group(group)

    def __len__(self) -> int:
        return sum(len(items) for items in self._raw.values())

    def __repr__(self) -> str:
        return f"<EntryPointIndex: {len(self)} entry points in {len(self._raw)} groups>"


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


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)
_CHUNK = 65536


def _read_bytes(path: str, *, until: bytes | None = None, chunk: int = _CHUNK) -> bytes | None:
    """Return the file's bytes, or ``None`` when it is missing or unreadable.

    With *until*, stop reading once the data read so far contains it. Plain
    :func:`os.open`/:func:`os.read` are used because building a Python file
    object costs several times more than the read itself.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = b""
        while True:
            block = os.read(fd, chunk)
            if not block:
                return data
            data += block
            if until is not None and until in data:
                return data
    except OSError:  # for example a directory where a file was expected
        return None
    finally:
        os.close(fd)


def _read_text(path: str) -> str | None:
    """Return the file's text (UTF-8, bad bytes replaced), or ``None`` if unreadable."""
    data = _read_bytes(path)
    return None if data is None else data.decode("utf-8", "replace")


def _read_identity(info: str) -> tuple[str | None, str | None]:
    """Return ``Name`` and ``Version`` from the headers of a metadata folder.

    Reads ``METADATA`` (dist-info) or ``PKG-INFO`` (egg-info) only up to the
    end of its header block; the long description after it is never read.
    """
    for metadata_file in ("METADATA", "PKG-INFO"):
        data = _read_bytes(os.path.join(info, metadata_file), until=b"\n\n", chunk=4096)
        if data is None:
            continue
        end = data.find(b"\n\n")
        if end >= 0:
            data = data[:end]
        name: str | None = None
        version: str | None = None
        for line in data.decode("utf-8", "replace").splitlines():
            if not line.strip():  # end of the header block
                break
            key, sep, value = line.partition(":")
            if not sep or key[:1].isspace():  # not a header, or a continuation line
                continue
            key = key.strip().lower()
            if key == "name" and name is None:
                name = value.strip()
            elif key == "version" and version is None:
                version = value.strip()
            if name is not None and version is not None:
                break
        return name or None, version or None
    return None, None


def _add_distribution(
    info: str, folder_name: str, folder_version: str | None, raw: _RawIndex
) -> None:
    """Index the entry points of the metadata folder *info*, if it has any."""
    text = _read_text(os.path.join(info, "entry_points.txt"))
    if not text:
        return
    entries = list(_parse_entry_points(text))
    if not entries:
        return
    name, version = _read_identity(info)
    identity = (name or folder_name, version or folder_version or _UNKNOWN_VERSION)
    for group, ep_name, value in entries:
        items = raw.get(group)
        if items is None:
            items = raw[group] = []
        items.append((ep_name, value, *identity))


def _scan_directory(directory: str, names: list[str], seen: set[str], raw: _RawIndex) -> None:
    """Index every metadata folder in *directory* (whose listing is *names*)."""
    egg_info: str | None = None
    for entry in sorted(names):
        low = entry.lower()
        if not low.endswith(_METADATA_SUFFIXES):
            if low == "egg-info":
                egg_info = entry
            continue
        stem = entry.rpartition(".")[0]
        folder_name, _, folder_version = stem.partition("-")
        info = os.path.join(directory, entry)
        key = normalize_dist_name(folder_name or _read_identity(info)[0] or "")
        if not key or key in seen:
            continue
        seen.add(key)
        version = folder_version if folder_version and "-" not in folder_version else None
        _add_distribution(info, folder_name, version, raw)
    # an unpacked egg on sys.path: ``name-1.0-py3.11.egg/EGG-INFO``
    base = os.path.basename(os.path.normpath(directory))
    if egg_info is not None and base.lower().endswith(".egg"):
        info = os.path.join(directory, egg_info)
        folder_name = base.partition("-")[0]
        key = normalize_dist_name(_read_identity(info)[0] or folder_name)
        if key and key not in seen:
            seen.add(key)
            _add_distribution(info, folder_name, None, raw)


def _scan_archive(path: str, seen: set[str], raw: _RawIndex) -> None:
    """Index a zip or ``.egg`` file on ``sys.path``, through :mod:`importlib.metadata`.

    Imported here, not at module level: importing it costs more than a
    typical scan, and most ``sys.path`` entries are folders.
    """
    import importlib.metadata

    for dist in importlib.metadata.distributions(path=[path]):
        dist_name: str | None = dist.metadata["Name"]
        if not dist_name:
            continue
        key = normalize_dist_name(dist_name)
        if key in seen:
            continue
        seen.add(key)
        version = dist.version or _UNKNOWN_VERSION
        # parsed like folders (lenient), not through dist.entry_points (strict)
        for group, name, value in _parse_entry_points(dist.read_text("entry_points.txt") or ""):
            raw.setdefault(group, []).append((name, value, dist_name, version))


def scan(path: Iterable[str]) -> EntryPointIndex:
    """Read the entry points of every distribution on *path*, importing nothing.

    *path* is read like ``sys.path``: directories are listed, zip and egg
    files are opened, ``''`` is the working directory, and entries that do
    not exist are skipped.
    """
    seen: set[str] = set()
    raw: _RawIndex = {}
    for entry in path:
        # sys.path may hold any object; only str and os.PathLike name folders
        item: object = os.fspath(entry) if isinstance(entry, os.PathLike) else entry
        if not isinstance(item, str):
            continue
        directory = item or "."
        try:
            names = os.listdir(directory)
        except NotADirectoryError:
            if os.path.isfile(directory):
                _scan_archive(directory, seen, raw)
            continue
        except OSError:
            continue
        _scan_directory(directory, names, seen, raw)
    return EntryPointIndex._from_raw(raw)


_lock = _thread.allocate_lock()
_cached: tuple[tuple[object, ...], EntryPointIndex] | None = None


def _cache_key(path: tuple[str, ...]) -> tuple[object, ...]:
    """*path*, plus the working directory if one of its entries is relative."""
    for entry in path:
        if not isinstance(entry, str) or not os.path.isabs(entry):
            try:
                cwd = os.getcwd()
            except OSError:  # the working directory was removed
                cwd = ""
            return (*path, cwd)
    return path


def entry_point_index() -> EntryPointIndex:
    """Return the process's entry-point index, scanning only if ``sys.path`` changed.

    Thread-safe: concurrent first calls scan once and share one index.
    """
    global _cached
    path = tuple(sys.path)
    key = _cache_key(path)
    cached = _cached
    if cached is not None and cached[0] == key:
        return cached[1]
    with _lock:
        cached = _cached
        if cached is not None and cached[0] == key:
            return cached[1]
        index = scan(path)
        _cached = (key, index)
        return index


def refresh() -> EntryPointIndex:
    """Forget the cached index and scan again (after installing a package in-process)."""
    global _cached
    with _lock:
        _cached = None
    return entry_point_index()
