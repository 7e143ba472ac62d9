"""The pytest plugin (``pytest11`` entry point ``sglang_conformance``).

Installing sglang registers this module with every pytest run; it stays
inert unless ``--sglang-conformance`` is given: it adds its options (shown
in ``pytest --help``) and nothing else, no header line, no fixture, no
collected test. With the flag it registers :mod:`sglang.conformance._session`,
which collects the suite's level modules from the installed package (so
no test file needs to exist in the vendor's repository), applies the
expectations file, and writes the header, the summary and the JSON report.

This module imports only the standard library, so loading it costs every
pytest run nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

__all__ = ["ENABLE_OPTION", "pytest_addoption", "pytest_configure"]

ENABLE_OPTION = "--sglang-conformance"
"""The flag that switches the suite on."""

_RUNTIMES = ("srt", "diffusion", "all")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the suite's options (they do nothing without ``--sglang-conformance``)."""
    group = parser.getgroup("sglang-conformance", "SGLang plugin conformance suite")
    group.addoption(
        ENABLE_OPTION,
        action="store_true",
        default=False,
        dest="sglang_conformance",
        help="run the SGLang conformance suite against the installed platform plugin",
    )
    group.addoption(
        "--sglang-platform",
        dest="sglang_platform",
        default=None,
        metavar="NAME",
        help="platform entry-point name to test (sets SGLANG_PLATFORM and "
        "SGLANG_DIFFUSION_PLATFORM_OVERRIDE); 'cpu' tests the built-in CPU platforms; "
        "default: what platform selection picks",
    )
    group.addoption(
        "--sglang-runtime",
        dest="sglang_runtime",
        default="srt",
        choices=_RUNTIMES,
        help="runtime(s) to test: srt (default), diffusion, or all (also every serve backend, "
        "in-tree and installed)",
    )
    group.addoption(
        "--sglang-serve-backend",
        dest="sglang_serve_backends",
        action="append",
        default=[],
        metavar="NAME",
        help="serve backend to test (a --model-type name: in-tree, or a sglang.serve_backends "
        "entry point); repeatable",
    )
    group.addoption(
        "--sglang-conformance-expect",
        dest="sglang_conformance_expect",
        default=None,
        metavar="FILE",
        help="TOML file of expected failures and skips by clause id (Python 3.11+)",
    )
    group.addoption(
        "--sglang-conformance-report",
        dest="sglang_conformance_report",
        default=None,
        metavar="PATH",
        help="write the JSON conformance report to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's session plugin when ``--sglang-conformance`` is given."""
    if not config.getoption("sglang_conformance"):
        return
    from sglang.conformance import _session

    _session.configure(config)
