"""One runtime's general plugins in this process: :class:`RuntimePlugins`.

One :class:`RuntimePlugins` per runtime (see :func:`runtime_plugins`) owns
that runtime's :class:`~sglang.runtime.hooks.HookRegistry` and two
activation steps, each run once per process through an
:class:`~sglang.runtime.gate.OnceGate`:

* **registration** (:meth:`RuntimePlugins.register_plugins`): compute the
  policy (:func:`~sglang.runtime.plugins.policy.compute_policy`), make the
  registry follow it, then load the general-plugin group
  (:func:`~sglang.runtime.plugins.loader.load_group`);
* **application** (:meth:`RuntimePlugins.apply_plugin_hooks`): register
  first if needed, then resolve and patch the targets.

Platform selection sets the plugin source while it imports and calls each
platform entry point's activation callback and while it builds the
selected plugin's platform class. Hooks a platform module registers at
import time therefore belong to their distribution, and registration
disables those of every unselected platform distribution
(:meth:`~sglang.runtime.hooks.HookRegistry.exclude_dists`) before anything
is applied. A failure to apply a hook of the selected platform's
distribution aborts startup with a :class:`~sglang.runtime.hooks.HookApplyError`.

SRT's ``load_plugins()`` runs both steps; diffusion's ``load_plugins()``
runs the first and ``apply_plugin_hooks()`` the second.
"""

from __future__ import annotations

from collections.abc import Collection

from sglang.runtime.gate import OnceGate
from sglang.runtime.hooks import HookInfo, HookRegistry
from sglang.runtime.plugins.loader import PluginOutcome, load_group
from sglang.runtime.plugins.policy import (
    PlatformDists,
    PluginPolicy,
    SelectionDists,
    compute_policy,
    enforce_policy,
    undecided_platform_hooks,
)
from sglang.runtime.spec import DIFFUSION, SRT, PerRuntime, RuntimeSpec

__all__ = [
    "RuntimePlugins",
    "load_plugins_by_group",
    "reset_all_for_tests",
    "runtime_plugins",
    "spec_for_group",
]


class RuntimePlugins:
    """The general plugins of one runtime: its registry and its two gated steps.

    Args:
        spec: The runtime.
        registry: The hook registry (a new one by default).
        platform_dists: Where the platform distributions come from
            (:mod:`sglang.runtime.selection.current` by default).
    """

    def __init__(
        self,
        spec: RuntimeSpec,
        *,
        registry: HookRegistry | None = None,
        platform_dists: PlatformDists | None = None,
    ) -> None:
        self.spec = spec
        self.registry = registry if registry is not None else HookRegistry(spec)
        self._dists: PlatformDists = (
            platform_dists if platform_dists is not None else SelectionDists()
        )
        self._policy: PluginPolicy | None = None
        self._outcomes: tuple[PluginOutcome, ...] = ()
        self.registration: OnceGate[tuple[PluginOutcome, ...]] = OnceGate(
            f"{spec.title} general-plugin registration", self._register
        )
        self.application: OnceGate[tuple[HookInfo, ...]] = OnceGate(
            f"{spec.title} general-plugin hook application", self._apply
        )

    def __repr__(self) -> str:
        return f"<RuntimePlugins {self.spec.name}: {self.registration.state.value}>"

    # -- policy ------------------------------------------------------------------

    def policy(self) -> PluginPolicy:
        """The allowlist, the selected and the excluded distributions.

        Computed at registration (selecting the platform if a plugin could be
        affected); before that, computed on demand and not cached.
        """
        if self._policy is not None:
            return self._policy
        return compute_policy(self.spec, self.registry, self._dists)

    def excluded_dists(self) -> frozenset[str]:
        """Platform distributions other than the selected one (their plugins are skipped)."""
        return self.policy().excluded_dists

    # -- the steps ---------------------------------------------------------------

    def _register(self) -> tuple[PluginOutcome, ...]:
        policy = self._policy = compute_policy(self.spec, self.registry, self._dists)
        enforce_policy(self.spec, self.registry, policy)
        self._outcomes = load_group(self.spec, self.registry, policy=policy)
        return self._outcomes

    def _apply(self) -> tuple[HookInfo, ...]:
        self.registration.run()
        if undecided_platform_hooks(self.spec, self.registry, self._policy):
            # selection ran after registration, which had no reason to select
            # (diffusion: load_plugins(), current_platform, apply_plugin_hooks())
            policy = self._policy = compute_policy(self.spec, self.registry, self._dists)
            enforce_policy(self.spec, self.registry, policy)
        self.registry.apply_hooks()
        return self.registry.hooks()

    def _inside_a_step(self) -> bool:
        return self.registration.is_reentrant() or self.application.is_reentrant()

    def register_plugins(self) -> tuple[PluginOutcome, ...]:
        """Discover the general plugins and run their callbacks (register only).

        Runs once per process behind the activation gate; no hook target is
        imported. A call from inside a plugin callback returns at once (the
        outer call finishes the step); other threads wait for the first.

        Returns:
            What was done with each entry point (empty on a re-entrant call).

        Raises:
            PluginLoadError: a plugin of the selected platform's distribution
                failed to import or in its callback (now or on an earlier
                call; the same exception is raised again).
        """
        self.registration.run()
        return self._outcomes

    def apply_plugin_hooks(self) -> tuple[HookInfo, ...]:
        """Register the plugins if that has not happened, then apply their hooks.

        Runs once per process behind the activation gate; hooks registered
        later are applied by ``HookRegistry.apply_hooks()``.

        Returns:
            Every registered hook with its status (empty on a re-entrant call).

        Raises:
            PluginLoadError: a required plugin failed to load.
            HookApplyError: a hook of the selected platform's distribution
                could not be applied (the apply was rolled back).
        """
        if self._inside_a_step():
            return ()
        self.application.run()
        return self.registry.hooks()

    def load_plugins(self) -> tuple[HookInfo, ...]:
        """Discover the general plugins, run their callbacks and apply their hooks.

        SRT's single step: :meth:`register_plugins`, then
        :meth:`apply_plugin_hooks`, once per process behind the activation
        gate: concurrent callers wait for the first, a call from inside a
        plugin callback returns at once, and a failure is remembered and
        raised again on every later call.

        Returns:
            Every registered hook with its status (empty on a re-entrant call).

        Raises:
            PluginLoadError: a plugin of the selected platform's distribution
                failed to import or in its callback.
            HookApplyError: one of its hooks could not be applied (the apply
                was rolled back).
        """
        return self.apply_plugin_hooks()

    def outcomes(self) -> tuple[PluginOutcome, ...]:
        """What registration did with each general-plugin entry point (empty before it ran)."""
        return self._outcomes

    def reset(self, *, restore: bool = True) -> None:
        """Forget both steps, every hook and the required distribution. For tests only.

        With *restore* (the default) every patch is undone first.
        """
        self.registration.reset()
        self.application.reset()
        self.registry.reset(restore=restore)
        self._policy = None
        self._outcomes = ()


_runtimes: PerRuntime[RuntimePlugins] = PerRuntime(RuntimePlugins)


def runtime_plugins(spec: RuntimeSpec) -> RuntimePlugins:
    """Return the process's :class:`RuntimePlugins` of *spec* (created on first use)."""
    return _runtimes.get(spec)


def spec_for_group(group: str) -> RuntimeSpec:
    """The runtime whose general-plugin group is *group* (SRT for any other group)."""
    return DIFFUSION if group == DIFFUSION.plugins_group else SRT


def reset_all_for_tests(*, restore: bool = True) -> None:
    """Reset both runtimes' plugin state (:meth:`RuntimePlugins.reset`). Tests only."""
    for plugins in _runtimes.values():
        plugins.reset(restore=restore)


def load_plugins_by_group(
    group: str, excluded_dists: Collection[str] | None = None
) -> tuple[PluginOutcome, ...]:
    """Import the allowed general plugins of *group* and run their callbacks (no apply).

    The low-level step under ``load_plugins()``, not gated: every call
    loads again. Hooks go to the registry of the runtime owning *group*.

    Args:
        group: An entry-point group, normally ``"sglang.srt.plugins"``.
        excluded_dists: Distributions whose plugins are skipped; by default
            the platform distributions other than the selected one.

    Raises:
        PluginLoadError: a plugin of the selected platform's distribution failed.
    """
    plugins = runtime_plugins(spec_for_group(group))
    policy = plugins.policy()
    if excluded_dists is not None:
        policy = PluginPolicy(policy.allowlist, policy.selected_dist, frozenset(excluded_dists))
    enforce_policy(plugins.spec, plugins.registry, policy)
    return load_group(plugins.spec, plugins.registry, group=group, policy=policy)
