"""Import a serve-backend factory, call it, and check what it returned.

The :class:`~sglang.sdk.serve.ServeBackend` constructor validates its
fields, but a factory can return anything (another type, an object whose
fields were changed after construction), so the registry checks the
returned object itself: its type, a supported ``api_version`` literal (the
version rule of :mod:`sglang.runtime.versions`: a deprecated one is
accepted with one WARNING), a callable ``run``, a callable or absent
``detect`` and a ``bool`` ``requires_model_path``.
"""

from __future__ import annotations

from collections.abc import Callable

from sglang.cli.serve._errors import LOGGER, ServeError
from sglang.runtime import versions
from sglang.runtime.discovery import EntryPointRecord
from sglang.sdk.contract import VersionStatus
from sglang.sdk.serve import ServeBackend

__all__ = ["RejectFn", "check_backend"]

RejectFn = Callable[[EntryPointRecord, str, str], ServeError]
"""Builds the error for *record* from a reason and a fix."""

_CONTRACT = "an argument-less factory returning sglang.cli.serve_backends.ServeBackend"
_KEY = "serve-backend"


def _reinstall(record: EntryPointRecord) -> str:
    return (
        f"fix the entry point {record.value!r} of {record.dist_name} or reinstall it "
        f"(pip install --force-reinstall {record.dist_name}); pip uninstall "
        f"{record.dist_name} removes the backend"
    )


def _takes_arguments(factory: Callable[..., object]) -> bool:
    """Whether *factory* cannot be called without arguments (error path only)."""
    import inspect

    try:
        inspect.signature(factory).bind()
    except TypeError:
        return True
    except ValueError:  # no signature to read
        return False
    return False


def _call_factory(record: EntryPointRecord, reject: RejectFn) -> object:
    try:
        factory = record.load()
    except Exception as exc:
        raise reject(
            record,
            f"importing {record.value} failed: {type(exc).__name__}: {exc}",
            _reinstall(record),
        ) from exc
    if not callable(factory):
        raise reject(
            record,
            f"{record.value} is {type(factory).__name__}, not a callable factory",
            f"point the entry point at {_CONTRACT}",
        )
    try:
        return factory()
    except Exception as exc:
        if isinstance(exc, TypeError) and _takes_arguments(factory):
            reason, fix = (
                "the factory must take no arguments",
                f"point the entry point at {_CONTRACT}",
            )
        else:
            reason, fix = f"the factory raised {type(exc).__name__}: {exc}", _reinstall(record)
        raise reject(record, reason, fix) from exc


def check_backend(record: EntryPointRecord, reject: RejectFn) -> ServeBackend:
    """Load *record*'s factory, call it and return its checked :class:`ServeBackend`.

    Raises:
        ServeError: built by *reject* (reason and fix) when any step fails.
    """
    backend = _call_factory(record, reject)
    if not isinstance(backend, ServeBackend):
        raise reject(
            record,
            f"the factory returned {type(backend).__module__}.{type(backend).__qualname__}, "
            f"not a ServeBackend",
            f"return ServeBackend(api_version=1, run=...) from {record.value}",
        )
    _check_version(record, backend, reject)
    detect: object = backend.detect
    flag: object = backend.requires_model_path
    problems = [
        "run is not callable" if not callable(backend.run) else "",
        "detect is neither callable nor None"
        if detect is not None and not callable(detect)
        else "",
        "requires_model_path is not a bool" if not isinstance(flag, bool) else "",
    ]
    bad = "; ".join(problem for problem in problems if problem)
    if bad:
        raise reject(
            record, f"the returned ServeBackend is malformed: {bad}", f"fix {record.value}"
        )
    return backend


def _check_version(record: EntryPointRecord, backend: ServeBackend, reject: RejectFn) -> None:
    version: object = backend.api_version
    status, table = versions.judge(_KEY, version)
    if status is VersionStatus.UNSUPPORTED:
        raise reject(
            record,
            f"api_version={version!r} is not supported by sglang "
            f"(supported: {table.supported_text()})",
            f"install a release of {record.dist_name} built for this sglang's serve-backend "
            f"API, or an sglang that supports api_version={version!r}",
        )
    if status is VersionStatus.DEPRECATED:
        assert isinstance(version, int)
        who = f"serve backend {record.name!r} of {record.dist} ({record.value})"
        fix = (
            f"update the backend to version {table.current} and return "
            f"ServeBackend(api_version={table.current}, ...), or install a release of "
            f"{record.dist_name} that does"
        )
        message = versions.deprecation_message(who, version, table, fix)
        versions.warn_deprecated(_KEY, f"{record.dist_name}:{record.name}", message, logger=LOGGER)
