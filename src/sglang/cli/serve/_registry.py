"""The serve-backend registry: registrations read from metadata, rejections, loading.

:func:`read_registry` reads the ``sglang.serve_backends`` group from the
process's one metadata scan (:mod:`sglang.runtime.discovery`) and adds the
in-tree backends. It imports nothing. Registrations that are wrong on their
face (a reserved name, a name two distributions declare) are rejected
there; :meth:`ServeBackendRegistry.load` imports one factory, calls it and
checks the object it returned. Every rejection makes only its own name
unusable and is logged as one WARNING naming the backend, its distribution
and the reason; selecting a rejected name raises :class:`ServeError` with
the same message.
"""

from __future__ import annotations

from sglang._version import __version__
from sglang.cli.serve._errors import LOGGER, ServeError, warn
from sglang.cli.serve._table import BUILTIN_BACKENDS, RESERVED_NAMES
from sglang.runtime.discovery import EntryPointRecord, duplicate_names, entry_point_index
from sglang.sdk._record import Record
from sglang.sdk.constants import SERVE_BACKENDS_GROUP

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.sdk.serve import ServeBackend

__all__ = [
    "LOGGER",
    "LoadedBackend",
    "Rejection",
    "ServeBackendRegistry",
    "read_registry",
]

_GROUP_TABLE = f'[project.entry-points."{SERVE_BACKENDS_GROUP}"]'


class Rejection(Record):
    """Why a serve-backend name is unusable.

    Attributes:
        name: The ``--model-type`` name.
        records: The registrations concerned (two or more for a duplicate).
        reason: What is wrong.
        fix: What the operator or the plugin's author can do about it.
    """

    name: str
    records: tuple[EntryPointRecord, ...]
    reason: str
    fix: str

    @property
    def distributions(self) -> str:
        """The distributions concerned, ``"a 1.0, b 2.0"``."""
        return ", ".join(record.dist for record in self.records)

    def message(self) -> str:
        """The one-line message of the WARNING and of the selection error."""
        values = ", ".join(f"{r.dist} ({r.value})" for r in self.records)
        return f"serve backend {self.name!r} of {values} is unusable: {self.reason}; {self.fix}"

    def warn(self) -> None:
        """Log :meth:`message` as one WARNING."""
        warn(self.message())


class LoadedBackend(Record):
    """A backend whose factory ran and whose result passed the checks.

    Attributes:
        record: Its registration.
        backend: What the factory returned.
    """

    record: EntryPointRecord
    backend: ServeBackend

    @property
    def name(self) -> str:
        """The backend's ``--model-type`` name."""
        return self.record.name

    @property
    def label(self) -> str:
        """``"name (distribution version)"``, for messages."""
        return f"{self.record.name!r} ({self.record.dist})"


def _builtin_records() -> tuple[EntryPointRecord, ...]:
    return tuple(
        EntryPointRecord(SERVE_BACKENDS_GROUP, name, value, "sglang", __version__)
        for name, value in BUILTIN_BACKENDS.items()
    )


def _face_rejections(records: tuple[EntryPointRecord, ...]) -> dict[str, Rejection]:
    """Rejections visible in the metadata alone: reserved and duplicate names."""
    rejected: dict[str, Rejection] = {}
    for record in records:
        if record.name in RESERVED_NAMES:
            reserved = ", ".join(sorted(RESERVED_NAMES))
            rejected.setdefault(
                f"{record.name}@{record.dist_name}",
                Rejection(
                    record.name,
                    (record,),
                    f"the name is reserved by sglang ({reserved})",
                    f"rename the entry point in {record.dist_name}'s {_GROUP_TABLE} table "
                    f"(--model-type {record.name} keeps selecting sglang's own backend)",
                ),
            )
    plugins = [record for record in records if record.name not in RESERVED_NAMES]
    for name, items in duplicate_names(plugins).items():
        rejected[name] = Rejection(
            name,
            tuple(items),
            f"{len(items)} registrations declare this name, so neither can be chosen",
            "uninstall all but one of these distributions (pip uninstall NAME), or have "
            "one of them rename its entry point",
        )
    return rejected


class ServeBackendRegistry:
    """The serve backends of one metadata scan, with their rejections.

    Args:
        records: The plugin registrations of ``sglang.serve_backends``.
    """

    def __init__(self, records: tuple[EntryPointRecord, ...]) -> None:
        self._rejected = _face_rejections(records)
        self._builtin = {record.name: record for record in _builtin_records()}
        rejected_names = {rejection.name for rejection in self._rejected.values()}
        self._plugins = {
            record.name: record for record in records if record.name not in rejected_names
        }

    @property
    def rejections(self) -> tuple[Rejection, ...]:
        """The registrations the metadata alone rejects (reserved and duplicate names)."""
        return tuple(self._rejected.values())

    def records(self) -> tuple[EntryPointRecord, ...]:
        """The usable-looking registrations: in-tree first, then plugins in discovery order."""
        return (*self._builtin.values(), *self._plugins.values())

    def record(self, name: str) -> EntryPointRecord:
        """The registration selected by ``--model-type NAME``.

        Raises:
            ServeError: if *name* is rejected or nobody registers it.
        """
        found = self._builtin.get(name) or self._plugins.get(name)
        if found is not None:
            return found
        rejection = self._rejected.get(name)
        if rejection is not None:
            raise ServeError(rejection.message())
        names = ", ".join(["auto", *self._builtin, *self._plugins])
        raise ServeError(
            f"unknown serve backend {name!r} (--model-type); available: {names}. Install "
            f"the distribution that registers {name!r} under {SERVE_BACKENDS_GROUP}, or run "
            f"sglang serve --help to see the installed backends with their distributions"
        )

    def load(self, record: EntryPointRecord) -> LoadedBackend:
        """Import *record*'s factory, call it and check the result.

        Raises:
            ServeError: with the rejection's message when any step fails.
        """
        from sglang.cli.serve._validate import check_backend

        return LoadedBackend(record, check_backend(record, _reject))


def _reject(record: EntryPointRecord, reason: str, fix: str) -> ServeError:
    return ServeError(Rejection(record.name, (record,), reason, fix).message())


def read_registry(warn: bool = True) -> ServeBackendRegistry:
    """Read the serve backends of this process's metadata scan (imports nothing).

    With *warn*, every rejection is logged as one WARNING.
    """
    registry = ServeBackendRegistry(entry_point_index().group(SERVE_BACKENDS_GROUP))
    if warn:
        for rejection in registry.rejections:
            rejection.warn()
    return registry
