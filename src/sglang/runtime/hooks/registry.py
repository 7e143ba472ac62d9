"""The hook registry: register hooks, apply them, undo them, report them.

Each runtime owns one :class:`HookRegistry` instance, exported under the
documented name ``HookRegistry`` (``sglang.srt.plugins.hook_registry`` for
SRT, ``sglang.multimodal_gen.runtime.platforms.plugins`` for diffusion), so
``HookRegistry.register(...)`` reads exactly as in the plugin guide while a
hook registered through one runtime never runs in the other.

Registration (:mod:`sglang.runtime.hooks.registration`) only records the
hook; nothing is imported. :meth:`HookRegistry.apply_hooks` resolves the
targets and patches them; calling it again applies hooks registered since,
rebuilding each changed target's chain from its original.
:meth:`HookRegistry.restore` undoes every patch.
"""

from __future__ import annotations

from collections.abc import Collection

from sglang.runtime.discovery import normalize_dist_name
from sglang.runtime.hooks.registration import HookRegistrations
from sglang.runtime.hooks.report import HookInfo, HookStatus, format_hooks
from sglang.runtime.hooks.state import RegistryState
from sglang.runtime.plugin_source import PluginSource

__all__ = ["HookRegistry"]


class HookRegistry(HookRegistrations):
    """A process-local registry of hooks for one runtime.

    Registers hooks (:meth:`register`, :meth:`plugin_hook`), applies them
    (:meth:`apply_hooks`), undoes them (:meth:`restore`) and reports them
    (:meth:`hooks`). Thread-safe: registration, application and restoring
    hold one re-entrant lock.

    Args:
        runtime: The runtime this registry belongs to (names it in messages).
        logger: Where warnings go; ``logging.getLogger("sglang.plugins")``
            by default.
    """

    # -- application -------------------------------------------------------------

    @property
    def required_dists(self) -> frozenset[str]:
        """Distributions whose hooks must apply (the selected platform's), normalised."""
        return self._required_dists

    def set_required_dists(self, dists: Collection[str]) -> None:
        """Declare whose hook failures abort :meth:`apply_hooks` (the plugin loader does this)."""
        with self._lock:
            self._required_dists = frozenset(normalize_dist_name(d) for d in dists)

    @property
    def excluded_dists(self) -> frozenset[str]:
        """Distributions whose hooks are disabled (see :meth:`exclude_dists`), normalised."""
        return frozenset(self._excluded_dists)

    def exclude_dists(self, dists: Collection[str], reason: str) -> int:
        """Disable every hook of *dists*, now and when registered later; return how many now.

        The plugin loader excludes the platform distributions other than the
        one that provided the selected platform: hooks their platform modules
        registered while selection imported them are dropped. Every active
        hook whose source's distribution is one of *dists* (compared
        normalised) becomes :attr:`~HookStatus.DISABLED` with *reason*, and
        applied ones are taken out by the next :meth:`apply_hooks`; a hook
        registered later from one of *dists* is disabled at registration, and
        one waiting for its target (:attr:`HookInfo.retried`) is no longer retried.
        Direct registrations (no source) are never excluded. :meth:`reset`
        forgets the exclusion.

        Args:
            dists: Distribution names, in any spelling.
            reason: The :attr:`HookInfo.reason` the disabled hooks report.

        Returns:
            How many registered hooks this call disabled.
        """
        names = frozenset(normalize_dist_name(d) for d in dists)
        with self._lock:
            for name in names:
                self._excluded_dists[name] = reason
            return self._state.disable(
                lambda e: e.source is not None and normalize_dist_name(e.source.dist_name) in names,
                reason,
            )

    def apply_hooks(self, *, required_dists: Collection[str] | None = None) -> tuple[HookInfo, ...]:
        """Resolve and patch every target with hooks registered since the last apply.

        Each changed target's chain is rebuilt from its original, so hooks
        registered after an earlier apply join those already applied. Hooks
        that cannot be applied are marked failed: one of a required
        distribution (or a direct registration) rolls back every patch of
        this call and raises; any other is logged as one WARNING.

        A hook that failed because its target did not exist (its module not
        found, or an attribute missing) is tried again by every later call
        and applied once the target appears (logged at INFO). While it stays
        missing, a required one fails each call again; a best-effort one is
        not logged again unless its failure changes. A hook whose target
        exists but does not fit (a module raising while it is imported, an
        AROUND hook on a class, an attribute refusing the patch) is not
        retried.

        Args:
            required_dists: Distributions whose hooks are required; by
                default those set by :meth:`set_required_dists`.

        Returns:
            The hooks whose status changed, as reports.

        Raises:
            HookApplyError: if a required hook failed (nothing of this apply
                stays patched).
        """
        with self._lock:
            if not self._state.entries:  # nothing registered: skip importing the machinery
                return ()
            from sglang.runtime.hooks.apply import Transaction

            required = self._required_dists if required_dists is None else frozenset(required_dists)
            return Transaction(self._state, self.runtime, self._logger, required).run()

    def restore(self) -> None:
        """Undo every patch and alias rebinding; registrations stay, pending again."""
        from sglang.runtime.hooks.undo import restore_all

        with self._lock:
            restore_all(self._state)

    def reset(self, *, restore: bool = True) -> None:
        """Forget every registration, exclusion and required distribution.

        With *restore* (the default) every patch is undone first; with
        ``restore=False`` applied patches stay in place but are no longer
        tracked (they cannot be undone afterwards).
        """
        from sglang.runtime.hooks.undo import restore_all

        with self._lock:
            if restore:
                restore_all(self._state)
            self._state = RegistryState()
            self._excluded_dists = {}
            self._required_dists = frozenset()

    def disable_source(self, source: PluginSource, reason: str) -> int:
        """Disable every active hook of *source* (its plugin failed); return how many.

        Applied ones are taken out by the next :meth:`apply_hooks`; failed
        ones waiting for their target are no longer retried.
        """
        with self._lock:
            return self._state.disable(lambda entry: entry.source == source, reason)

    # -- introspection -----------------------------------------------------------

    def hooks(self) -> tuple[HookInfo, ...]:
        """Every registered hook, in registration order, with its status."""
        with self._lock:
            return tuple(entry.info() for entry in self._state.entries)

    def pending(self) -> tuple[HookInfo, ...]:
        """The hooks the next :meth:`apply_hooks` will try to apply.

        Those registered since the last apply, and those that failed because
        their target did not exist yet (:attr:`HookInfo.retried`).
        """
        return tuple(
            info for info in self.hooks() if info.status is HookStatus.PENDING or info.retried
        )

    def format(self) -> str:
        """:meth:`hooks` as an aligned text table."""
        return format_hooks(self.hooks())
