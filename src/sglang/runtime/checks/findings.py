"""What ``sglang plugins check`` reports: findings, by severity, per checked plugin.

A :class:`Finding` has a stable :attr:`~Finding.code` (the documented list
is in the CLI reference), a :class:`Severity`, the subject it is about (a
class, a method, a hook) and a message that says what to change. A
:class:`PluginCheck` gathers the findings of one entry point (or of one
class named with ``--class``) with what was inspected: the platform classes
and the registered hooks.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = ["CheckedClass", "CheckedHook", "Finding", "PluginCheck", "Severity"]


class Severity(enum.Enum):
    """How much a finding matters to a vendor's CI."""

    ERROR = "error"
    """The plugin breaks the contract: selection, serving or hook application fails."""

    WARNING = "warning"
    """Likely a mistake or a contract risk; ``--strict`` fails on it."""

    NOTE = "note"
    """Worth knowing, never a failure (an override without effect in this release)."""


@dataclass(frozen=True)
class Finding:
    """One thing ``sglang plugins check`` found.

    Attributes:
        code: A stable identifier, for example ``"signature-drift"``.
        severity: Error, warning or note.
        subject: What it is about: ``pkg.mod.Cls.method``, a hook target, a class.
        message: What is wrong and what to change.
    """

    code: str
    severity: Severity
    subject: str
    message: str

    def as_json(self) -> dict[str, str]:
        """The finding as the documented JSON object."""
        return {
            "severity": self.severity.value,
            "code": self.code,
            "subject": self.subject,
            "message": self.message,
        }


@dataclass(frozen=True)
class CheckedClass:
    """A platform class that was inspected, and how it was found.

    Attributes:
        qualname: ``module.Class``.
        found_by: ``"callback"`` (the activation callback returned it),
            ``"distribution"`` (defined in the plugin's distribution) or
            ``"option"`` (``--class``).
        api_version: The declared ``api_version`` (the ``repr`` of one that is
            not an ``int``), or ``None`` when undeclared.
    """

    qualname: str
    found_by: str
    api_version: int | str | None = None


@dataclass(frozen=True)
class CheckedHook:
    """A hook a plugin registered, and its target's documented version.

    Attributes:
        target: The target path as registered.
        hook_type: ``"BEFORE"``, ``"AFTER"``, ``"AROUND"`` or ``"REPLACE"``.
        hook_name: The hook's qualified name.
        documented: Whether the target is a documented hook target.
        api_version: The version the registration stated, or ``None``.
        target_version: The documented target's signature version, or ``None``.
    """

    target: str
    hook_type: str
    hook_name: str
    documented: bool
    api_version: int | None
    target_version: int | None


@dataclass
class PluginCheck:
    """Everything checked for one entry point, or for one ``--class`` class.

    Attributes:
        kind: ``"srt-platform"``, ``"diffusion-platform"``, ``"srt-plugin"``,
            ``"diffusion-plugin"``, ``"serve-backend"``, ``"class"`` or
            ``"unknown"`` (a NAME nothing is installed under).
        name: The entry-point name (or the class, or the unknown NAME).
        group: The entry-point group, if any.
        value: The entry point's ``module:attr``, if any.
        distribution: The distribution's name, if any.
        version: The distribution's version, if any.
    """

    kind: str
    name: str
    group: str | None = None
    value: str | None = None
    distribution: str | None = None
    version: str | None = None
    classes: list[CheckedClass] = field(default_factory=list)
    hooks: list[CheckedHook] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(self, code: str, severity: Severity, subject: str, message: str) -> None:
        """Record one finding."""
        self.findings.append(Finding(code, severity, subject, message))

    def count(self, severity: Severity) -> int:
        """How many findings of *severity* this check has."""
        return sum(1 for finding in self.findings if finding.severity is severity)

    def as_json(self) -> dict[str, object]:
        """The check as the documented JSON object."""
        return {
            "kind": self.kind,
            "name": self.name,
            "group": self.group,
            "value": self.value,
            "distribution": self.distribution,
            "version": self.version,
            "classes": [
                {"class": c.qualname, "found_by": c.found_by, "api_version": c.api_version}
                for c in self.classes
            ],
            "hooks": [
                {
                    "target": h.target,
                    "type": h.hook_type,
                    "hook": h.hook_name,
                    "documented": h.documented,
                    "api_version": h.api_version,
                    "target_version": h.target_version,
                }
                for h in self.hooks
            ],
            "findings": [finding.as_json() for finding in self.findings],
        }
