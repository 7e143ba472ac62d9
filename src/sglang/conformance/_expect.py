"""The vendor's expectations file: expected failures and skips by clause id.

``--sglang-conformance-expect FILE`` reads a TOML file with two optional
tables, each mapping a clause id to the reason::

    [xfail]
    ACT-03 = "our probe asks the driver through torch"

    [skip]
    E2E-02 = "the lab machine has one card"

An expected failure is strict: a clause that passes anyway fails the run
(the declaration is stale). Ids that name no clause are reported. The file
is parsed with :mod:`tomllib`, so the option needs Python 3.11 or newer.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sglang.conformance._clauses import CLAUSES

__all__ = ["Expectations", "ExpectationsError", "load_expectations"]

_TABLES = ("xfail", "skip")


class ExpectationsError(ValueError):
    """The expectations file cannot be used; the message says why and how to fix it."""


@dataclass(frozen=True)
class Expectations:
    """What the vendor expects of some clauses.

    Attributes:
        xfail: Clause id -> reason, for clauses expected to fail (strictly).
        skip: Clause id -> reason, for clauses not to run.
        unknown: Ids in the file that name no clause of this suite version.
        source: The file read, or ``None`` when there is none.
    """

    xfail: Mapping[str, str] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()
    source: str | None = None


def _parse(path: Path) -> dict[str, object]:
    import importlib
    import importlib.util

    if importlib.util.find_spec("tomllib") is None:  # pragma: no cover - Python 3.10
        raise ExpectationsError(
            f"--sglang-conformance-expect needs Python 3.11 or newer (tomllib); "
            f"this is Python {sys.version.split()[0]}. Run the suite on 3.11+ or drop the option."
        )
    tomllib: Any = importlib.import_module("tomllib")  # 3.11+: typed as Any for 3.10 checkers
    try:
        with path.open("rb") as handle:
            data: dict[str, object] = tomllib.load(handle)
            return data
    except OSError as exc:
        raise ExpectationsError(f"cannot read the expectations file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ExpectationsError(f"{path} is not valid TOML: {exc}") from exc


def load_expectations(path: str | None) -> Expectations:
    """Read the expectations file at *path* (``None``: no expectations).

    Raises:
        ExpectationsError: The file is unreadable, not TOML, has other tables
            than ``xfail`` and ``skip``, a reason that is not a non-empty
            string, or one id in both tables.
    """
    if path is None:
        return Expectations()
    data = _parse(Path(path))
    extra = sorted(set(data) - set(_TABLES))
    if extra:
        raise ExpectationsError(
            f"{path}: unknown table(s) {', '.join(extra)}; only [xfail] and [skip] are read"
        )
    tables: dict[str, dict[str, str]] = {}
    for name in _TABLES:
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise ExpectationsError(f"{path}: [{name}] must be a table of clause id = reason")
        entries: dict[str, str] = {}
        for clause_id, reason in table.items():
            if not isinstance(reason, str) or not reason.strip():
                raise ExpectationsError(
                    f"{path}: [{name}] {clause_id} needs a non-empty reason string"
                )
            entries[str(clause_id)] = reason.strip()
        tables[name] = entries
    both = sorted(set(tables["xfail"]) & set(tables["skip"]))
    if both:
        raise ExpectationsError(f"{path}: {', '.join(both)} listed under both [xfail] and [skip]")
    named = {*tables["xfail"], *tables["skip"]}
    unknown = tuple(sorted(clause_id for clause_id in named if clause_id not in CLAUSES))
    return Expectations(tables["xfail"], tables["skip"], unknown, str(path))
