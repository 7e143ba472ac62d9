"""``sglang.conformance``: the pytest plugin vendors run on their own hardware.

``pytest --sglang-conformance`` (in any directory, with the vendor's
package installed) runs every clause of :data:`CLAUSES` against the
platform that selection picks. The plugin is registered through the
``pytest11`` entry point ``sglang_conformance`` and is inert without the
flag. See the conformance guide for the options, the expectations file and
the JSON report.

Importing this package imports neither pytest nor torch; the names load on
first access.
"""

from __future__ import annotations

from sglang.runtime._lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sglang.conformance._clauses import CLAUSES, Clause, Level, clause, clause_of
    from sglang.conformance._expect import Expectations, ExpectationsError, load_expectations
    from sglang.conformance._report import OUTCOMES
    from sglang.conformance._session import SUITE_VERSION
    from sglang.sdk.capabilities import Capability

__all__ = [
    "CLAUSES",
    "OUTCOMES",
    "SUITE_VERSION",
    "Capability",
    "Clause",
    "Expectations",
    "ExpectationsError",
    "Level",
    "clause",
    "clause_of",
    "load_expectations",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "sglang.conformance._clauses": ("CLAUSES", "Clause", "Level", "clause", "clause_of"),
        "sglang.conformance._expect": ("Expectations", "ExpectationsError", "load_expectations"),
        "sglang.conformance._report": ("OUTCOMES",),
        "sglang.conformance._session": ("SUITE_VERSION",),
        "sglang.sdk.capabilities": ("Capability",),
    },
)
