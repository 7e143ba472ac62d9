"""What ``sglang plugins check`` and ``sglang plugins contract`` compute.

The checks judge installed plugins against the contract of :mod:`sglang.sdk`
without selecting a platform, applying a hook or initialising a device:

* :mod:`~sglang.runtime.checks.entries`: one check per entry point or class;
* :mod:`~sglang.runtime.checks.platforms`: finding a platform plugin's
  classes and judging them (version, signatures, names, operations);
* :mod:`~sglang.runtime.checks.hooks`: the hooks a plugin registers;
* :mod:`~sglang.runtime.checks.signatures`: signatures as text, the
  override rule, near-miss names;
* :mod:`~sglang.runtime.checks.findings`: what a check reports;
* :mod:`~sglang.runtime.checks.manifest`: the contract manifest.
"""

from sglang.runtime.checks.entries import check_general, check_named_class, check_platform
from sglang.runtime.checks.findings import (
    CheckedClass,
    CheckedHook,
    Finding,
    PluginCheck,
    Severity,
)

__all__ = [
    "CheckedClass",
    "CheckedHook",
    "Finding",
    "PluginCheck",
    "Severity",
    "check_general",
    "check_named_class",
    "check_platform",
]
