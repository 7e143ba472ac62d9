"""The compatibility page's version rule, written once for every kind of contract.

Serve backends (``ServeBackend(api_version=1, ...)``), platform classes
(``api_version: ClassVar[Literal[1]] = 1``) and hook registrations
(``api_version=1``) state the version of the contract they were written
against. Each contract's :class:`~sglang.sdk.contract.ContractVersions`
says what this release accepts:

* the current version: accepted;
* a deprecated one (the previous version, for one minor release after a
  change): accepted, with one WARNING per plugin naming the plugin and what
  to change (:func:`warn_deprecated`);
* anything else: refused, with :func:`unsupported_message` (the declaring
  plugin, the value, the supported set and the fix).

The tables are looked up through :data:`TABLES`, keyed ``"serve-backend"``,
``"srt-platform"``, ``"diffusion-platform"`` and ``"hook:<dotted target>"``
(documented targets fall back to :data:`sglang.sdk.targets.HOOK_TARGETS`),
so a test can substitute a table and see the rule act. Importing this module
costs nothing beyond the sdk's contract tables: it sits on the selection path.
"""

from __future__ import annotations

from sglang.sdk.contract import CONTRACT_VERSIONS, ContractVersions, VersionStatus

__all__ = [
    "TABLES",
    "DeprecationCollector",
    "deprecation_message",
    "hook_key",
    "judge",
    "platform_key",
    "reset_warnings",
    "unsupported_message",
    "unsupported_reason",
    "versions_for",
    "warn_deprecated",
]

TABLES: dict[str, ContractVersions] = dict(CONTRACT_VERSIONS)
"""The support tables consulted, by key; tests substitute entries (``"hook:..."`` included)."""

_warned: set[tuple[str, str]] = set()


def platform_key(runtime: str) -> str:
    """The table key of a runtime's platform contract (``"srt-platform"``, ...)."""
    return f"{runtime}-platform"


def hook_key(target: str) -> str:
    """The table key of hook target *target* (dotted or ``pkg.mod:Cls.meth``)."""
    return "hook:" + target.replace(":", ".")


def versions_for(key: str) -> ContractVersions | None:
    """The support table of *key*; ``None`` for a hook target that is not documented."""
    found = TABLES.get(key)
    if found is None and key.startswith("hook:"):
        from sglang.sdk.targets import documented_target

        target = documented_target(key[len("hook:") :])
        found = target.versions if target is not None else None
    return found


def judge(key: str, declared: object) -> tuple[VersionStatus, ContractVersions]:
    """How this release treats *declared* for contract *key*, and the table it used.

    Raises:
        KeyError: *key* has no table (an undocumented hook target).
    """
    versions = versions_for(key)
    if versions is None:
        raise KeyError(f"no contract versions for {key!r}")
    return versions.status(declared), versions


def unsupported_reason(who: str, declared: object, versions: ContractVersions) -> str:
    """``<who> declares api_version=2, which this sglang does not support (...)``."""
    return (
        f"{who} declares api_version={declared!r}, which this sglang does not support "
        f"({versions.contract}: supported {versions.supported_text()}, current "
        f"{versions.current})"
    )


def unsupported_message(who: str, declared: object, versions: ContractVersions, fix: str) -> str:
    """:func:`unsupported_reason` and the fix, on one line: ``... Fix: <fix>``."""
    return f"{unsupported_reason(who, declared, versions)}. Fix: {fix}"


def deprecation_message(who: str, declared: int, versions: ContractVersions, fix: str) -> str:
    """The WARNING for a deprecated version: who, what changed, and what to do."""
    change = versions.change or "see the release notes under Contract changes"
    return (
        f"{who} declares api_version={declared} of {versions.contract}, which is deprecated: "
        f"this sglang implements version {versions.current} and accepts {declared} only until "
        f"its next minor release. What changed: {change}. Fix: {fix}"
    )


def warn_deprecated(key: str, plugin: str, message: str, *, logger: str) -> bool:
    """Log *message* as a WARNING on *logger*, once per contract *key* and *plugin*.

    Inside a :class:`DeprecationCollector` block the message is collected instead.

    Returns:
        Whether it was logged (or collected) now (``False``: this plugin was
        warned already).
    """
    if (key, plugin) in _warned:
        return False
    _warned.add((key, plugin))
    if _collectors:
        _collectors[-1].messages.append((key, plugin, message))
        return True
    import logging

    logging.getLogger(logger).warning("%s", message)
    return True


class DeprecationCollector:
    """Collect the deprecation warnings of a block instead of logging them.

    ``sglang plugins check`` reports them as findings::

        with DeprecationCollector() as collected:
            ...
        collected.messages  # [(key, plugin, message), ...]
    """

    def __init__(self) -> None:
        self.messages: list[tuple[str, str, str]] = []
        """``(contract key, plugin, message)`` of each deprecation, in order."""

    def __enter__(self) -> DeprecationCollector:
        _collectors.append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _collectors.remove(self)


_collectors: list[DeprecationCollector] = []


def reset_warnings() -> None:
    """Forget which plugins were warned, so that each warns again (for tests)."""
    _warned.clear()
