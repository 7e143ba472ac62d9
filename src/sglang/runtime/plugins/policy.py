"""Plugin policy: which general plugins load, and which distributions decide.

:func:`compute_policy` is the one place the policy is computed, from
``SGLANG_PLUGINS`` and the platform selection: the selected platform's
distribution is *required* (its plugin and hook failures abort startup),
every other platform distribution is *excluded* (its general plugins are
skipped and the hooks its platform module registered are disabled).
:func:`enforce_policy` makes a hook registry follow a policy.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Protocol

from sglang.runtime.allowlist import read_allowlist
from sglang.runtime.discovery import entry_point_index, normalize_dist_name
from sglang.runtime.hooks import PLUGINS_LOGGER, HookRegistry
from sglang.runtime.spec import RuntimeSpec

__all__ = [
    "PlatformDists",
    "PluginPolicy",
    "SelectionDists",
    "compute_policy",
    "enforce_policy",
    "excluded_reason",
    "undecided_platform_hooks",
]

_logger = logging.getLogger(PLUGINS_LOGGER)


@dataclass(frozen=True)
class PluginPolicy:
    """Which general plugins load, and whose failures abort startup.

    Attributes:
        allowlist: The ``SGLANG_PLUGINS`` names, or ``None`` (unset: all).
        selected_dist: The distribution that provided the selected platform
            (``None``: a built-in platform, or selection not needed).
        excluded_dists: Platform distributions other than the selected one;
            their general plugins are skipped.
    """

    allowlist: frozenset[str] | None
    selected_dist: str | None
    excluded_dists: frozenset[str]

    @property
    def required_dists(self) -> frozenset[str]:
        """The distributions whose plugins must load and apply (the selected one)."""
        return frozenset() if self.selected_dist is None else frozenset({self.selected_dist})

    def allows(self, name: str) -> bool:
        """Whether the allowlist lets the entry point *name* load (unset: every name)."""
        return self.allowlist is None or name in self.allowlist

    def requires(self, dist: str) -> bool:
        """Whether *dist* (any spelling) is the selected platform's distribution."""
        name = normalize_dist_name(dist)
        return any(normalize_dist_name(d) == name for d in self.required_dists)

    def excludes(self, dist: str) -> bool:
        """Whether *dist*'s general plugins are skipped: an unselected platform distribution."""
        name = normalize_dist_name(dist)
        excluded = any(normalize_dist_name(d) == name for d in self.excluded_dists)
        return excluded and not self.requires(dist)

    def decides(self, dist: str) -> bool:
        """Whether *dist* (any spelling) is the selected or an excluded distribution."""
        name = normalize_dist_name(dist)
        return any(
            normalize_dist_name(d) == name for d in self.required_dists | self.excluded_dists
        )


class PlatformDists(Protocol):
    """Where the loader learns the platform distributions (platform selection)."""

    def selected(self, spec: RuntimeSpec) -> str | None:
        """The distribution of the selected platform (selecting if needed); ``None``: built-in."""
        ...

    def installed(self, spec: RuntimeSpec) -> frozenset[str]:
        """Every distribution declaring a platform entry point of *spec*."""
        ...


class SelectionDists:
    """:class:`PlatformDists` backed by :mod:`sglang.runtime.selection.current`."""

    def selected(self, spec: RuntimeSpec) -> str | None:
        """Select *spec*'s platform if needed; return its distribution (``None``: built-in)."""
        from sglang.runtime.selection.current import selected_platform_dist

        return selected_platform_dist(spec)

    def installed(self, spec: RuntimeSpec) -> frozenset[str]:
        """Every distribution declaring a platform of *spec* (metadata only)."""
        from sglang.runtime.selection.current import platform_dists

        return platform_dists(spec)


def undecided_platform_hooks(
    spec: RuntimeSpec, registry: HookRegistry, policy: PluginPolicy | None
) -> bool:
    """Whether a platform module registered hooks that *policy* neither requires nor excludes.

    Platform selection registered them (it ran, or runs, in this process)
    after a policy computed without selecting; ``None`` decides nothing.
    """
    return any(
        info.source is not None
        and info.source.group == spec.platforms_group
        and (policy is None or not policy.decides(info.source.dist_name))
        for info in registry.hooks()
    )


def compute_policy(spec: RuntimeSpec, registry: HookRegistry, dists: PlatformDists) -> PluginPolicy:
    """Compute *spec*'s plugin policy now.

    Selects the platform (through *dists*) only when that can matter: a
    general plugin is allowed, or a platform module registered hooks in
    *registry*, and some distribution declares a platform.
    """
    allowlist = read_allowlist(spec.plugins_env, os.environ, entry_point_index())
    candidates = [
        record
        for record in entry_point_index().group(spec.plugins_group)
        if allowlist is None or record.name in allowlist
    ]
    # Platform modules that registered hooks while selection imported them
    # need a decision too (selection has already run then: no extra cost).
    needed = bool(candidates) or undecided_platform_hooks(spec, registry, None)
    installed = dists.installed(spec) if needed else frozenset()
    # No plugin to load, no platform hook, or no platform distribution:
    # nothing to exclude or require, so the platform need not be selected
    # (no hardware probing).
    selected = dists.selected(spec) if installed else None
    excluded = frozenset(
        dist
        for dist in installed
        if selected is None or normalize_dist_name(dist) != normalize_dist_name(selected)
    )
    return PluginPolicy(allowlist, selected, excluded)


def excluded_reason(spec: RuntimeSpec, dist: str, selected_dist: str | None) -> str:
    """Why the hooks of platform distribution *dist* are disabled (a :class:`HookInfo` reason)."""
    names = sorted(
        {
            record.name
            for record in entry_point_index().group(spec.platforms_group)
            if normalize_dist_name(record.dist_name) == normalize_dist_name(dist)
        }
    )
    chosen = (
        "a built-in platform"
        if selected_dist is None
        else f"the platform of distribution {selected_dist}"
    )
    how = " or ".join(f"{spec.selector_env}={name}" for name in names) or spec.selector_env
    return (
        f"distribution {dist} provides a platform that was not selected ({spec.title} selected "
        f"{chosen}); hooks of unselected platform packages are skipped. Select its platform "
        f"with {how} to use them."
    )


def enforce_policy(spec: RuntimeSpec, registry: HookRegistry, policy: PluginPolicy) -> None:
    """Make *registry* follow *policy*: require the selected distribution, exclude the others.

    Hook failures of the selected platform's distribution abort
    :meth:`~HookRegistry.apply_hooks`; every hook of an excluded platform
    distribution (registered by its platform module while selection loaded
    it, or later) is disabled with a reason naming the distribution and the
    selector variable (:meth:`HookRegistry.exclude_dists`).
    """
    registry.set_required_dists(policy.required_dists)
    for dist in sorted(policy.excluded_dists):
        count = registry.exclude_dists([dist], excluded_reason(spec, dist, policy.selected_dist))
        if count:
            _logger.debug(
                "%s: disabled %d hook(s) of unselected platform distribution %s",
                spec.title,
                count,
                dist,
            )
