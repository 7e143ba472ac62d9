"""The hook registry: register hooks, apply them, undo them, report them.

Each runtime owns one :class:`HookRegistry` instance, exported under the
documented name ``HookRegistry`` (``sglang.srt.plugins.hook_registry`` for
SRT, ``sglang.multimodal_gen.runtime.platforms.plugins`` for diffusion), so
``HookRegistry.register(...)`` reads exactly as in the plugin guide while a
hook registered through one runtime never runs in the other.

Registration only records the hook; nothing is imported. :meth:`HookRegistry.apply_hooks`
resolves the targets and patches them; calling it again applies hooks
registered since, rebuilding each changed target's chain from its original.
:meth:`HookRegistry.restore` undoes every patch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar, overload

from sglang.runtime.discovery import normalize_dist_name
from sglang.runtime.hooks.report import HookInfo, HookStatus, format_hooks
from sglang.runtime.hooks.state import Entry, RegistryState
from sglang.runtime.hooks.targets import TargetPath, parse_target
from sglang.runtime.plugin_source import PLUGINS_LOGGER, PluginSource, _current_plugin_source
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.hooks import (
    AfterHook,
    AroundHook,
    BeforeHook,
    ClassmethodTarget,
    HookTarget,
    HookType,
    ReplaceHook,
)

__all__ = ["HookRegistry"]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
H = TypeVar("H", bound=Callable[..., object])


class HookRegistry:
    """A process-local registry of hooks for one runtime.

    Thread-safe: registration, application and restoring hold one
    re-entrant lock, so a module imported while hooks are being applied
    may itself register hooks (they stay pending until the next apply).

    Args:
        runtime: The runtime this registry belongs to (names it in messages).
        logger: Where warnings go; ``logging.getLogger("sglang.plugins")``
            by default.
    """

    def __init__(self, runtime: RuntimeSpec, *, logger: logging.Logger | None = None) -> None:
        self.runtime = runtime
        self._logger = logger if logger is not None else logging.getLogger(PLUGINS_LOGGER)
        self._lock = threading.RLock()
        self._state = RegistryState()
        self._required_dists: frozenset[str] = frozenset()
        self._excluded_dists: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"<HookRegistry {self.runtime.name}: {len(self._state.entries)} hook(s)>"

    # -- registration ----------------------------------------------------------

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: BeforeHook[P],
        hook_type: Literal[HookType.BEFORE],
        *,
        source: PluginSource | None = None,
    ) -> BeforeHook[P]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: AfterHook[R, P],
        hook_type: Literal[HookType.AFTER],
        *,
        source: PluginSource | None = None,
    ) -> AfterHook[R, P]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: AroundHook[P, R],
        hook_type: Literal[HookType.AROUND],
        *,
        source: PluginSource | None = None,
    ) -> AroundHook[P, R]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: ReplaceHook[P, R],
        hook_type: Literal[HookType.REPLACE],
        *,
        source: PluginSource | None = None,
    ) -> ReplaceHook[P, R]: ...

    @overload
    def register(
        self,
        target: str,
        hook: H,
        hook_type: HookType,
        *,
        source: PluginSource | None = None,
    ) -> H: ...

    def register(
        self,
        target: object,
        hook: Callable[..., Any],
        hook_type: HookType,
        *,
        source: PluginSource | None = None,
    ) -> Any:
        """Register *hook* on *target*; return *hook* unchanged.

        Nothing is imported: the target is resolved by the next
        :meth:`apply_hooks`. The hook is attributed to *source*, or to the
        plugin being loaded (see
        :func:`~sglang.runtime.hooks.current_plugin_source`), or else
        recorded as a direct registration.

        Args:
            target: ``"pkg.mod.Cls.meth"``, ``"pkg.mod:Cls.meth"``,
                ``"pkg.mod:func"``, or a typed :class:`~sglang.sdk.hooks.HookTarget`
                (then the hook's signature is checked against the target's;
                for a classmethod, ``hook_target(Cls.meth, cls=Cls)``).
            hook: The hook callable, or for REPLACE of a class, the class. A
                method's hooks receive ``self`` first, a classmethod's ``cls``
                (the class the call was made on).
            hook_type: How the hook combines with the target.
            source: Attribute the hook to this plugin explicitly.

        Raises:
            TypeError: if *hook_type* is not a :class:`HookType`, *hook* is not
                callable, or *hook* is a class with a type other than REPLACE.
            ValueError: if *target* is not a valid target path.
        """
        path = _target_path(target)
        if not isinstance(hook_type, HookType):
            raise TypeError(
                f"hook_type must be a HookType (BEFORE, AFTER, AROUND or REPLACE), "
                f"not {hook_type!r}"
            )
        if not callable(hook):
            raise TypeError(f"hook for target {path.text!r} must be callable, not {hook!r}")
        if source is None:
            source = _current_plugin_source.get()
        with self._lock:
            state = self._state
            entry = Entry(next(state.counter), path, hook, hook_type, source)
            if isinstance(hook, type) and hook_type is not HookType.REPLACE:
                raise TypeError(
                    f"{entry.label}: a class can only be registered with HookType.REPLACE "
                    f"(it replaces the target class); {hook_type.name} hooks must be functions"
                )
            if source is not None:
                excluded = self._excluded_dists.get(normalize_dist_name(source.dist_name))
                if excluded is not None:
                    entry.status, entry.reason = HookStatus.DISABLED, excluded
            state.entries.append(entry)
            state.by_path.setdefault(path.dotted, []).append(entry)
            state.dirty.add(path.dotted)
        return hook

    # Classmethod targets first: pyright checks a decorated hook against a
    # HookTarget whose parameters are a Concatenate only when the overload
    # spells the Concatenate itself (it loses the positional-only ``cls``
    # when re-specialising ``BeforeHook[P]`` and the others).
    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.BEFORE]
    ) -> Callable[[BeforeHook[Concatenate[type[T], P]]], BeforeHook[Concatenate[type[T], P]]]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.AFTER]
    ) -> Callable[
        [AfterHook[R, Concatenate[type[T], P]]], AfterHook[R, Concatenate[type[T], P]]
    ]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.AROUND]
    ) -> Callable[
        [AroundHook[Concatenate[type[T], P], R]], AroundHook[Concatenate[type[T], P], R]
    ]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.REPLACE]
    ) -> Callable[
        [ReplaceHook[Concatenate[type[T], P], R]], ReplaceHook[Concatenate[type[T], P], R]
    ]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.BEFORE]
    ) -> Callable[[BeforeHook[P]], BeforeHook[P]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.AFTER]
    ) -> Callable[[AfterHook[R, P]], AfterHook[R, P]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.AROUND]
    ) -> Callable[[AroundHook[P, R]], AroundHook[P, R]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.REPLACE]
    ) -> Callable[[ReplaceHook[P, R]], ReplaceHook[P, R]]: ...

    @overload
    def plugin_hook(self, target: str, *, type: HookType) -> Callable[[H], H]: ...

    def plugin_hook(self, target: object, *, type: HookType) -> Any:
        """Decorator form of :meth:`register`: ``@plugin_hook(target, type=HookType.AROUND)``.

        The decorated function (or class, for REPLACE of a class) is
        registered and returned unchanged.
        """
        path = _target_path(target).text  # a bad path fails where the decorator is written
        hook_type = type

        def decorator(hook: Callable[..., Any]) -> Callable[..., Any]:
            self.register(path, hook, hook_type)
            return hook

        return decorator

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
        count = 0
        with self._lock:
            for name in names:
                self._excluded_dists[name] = reason
            state = self._state
            for entry in state.entries:
                if (
                    entry.source is not None
                    and (entry.active or entry.retried)
                    and normalize_dist_name(entry.source.dist_name) in names
                ):
                    entry.status, entry.reason = HookStatus.DISABLED, reason
                    state.dirty.add(entry.path.dotted)
                    count += 1
        return count

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
        count = 0
        with self._lock:
            state = self._state
            for entry in state.entries:
                if entry.source == source and (entry.active or entry.retried):
                    entry.status, entry.reason = HookStatus.DISABLED, reason
                    state.dirty.add(entry.path.dotted)
                    count += 1
        return count

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


def _target_path(target: object) -> TargetPath:
    if isinstance(target, HookTarget):
        return parse_target(target.path)
    if isinstance(target, str):
        return parse_target(target)
    raise TypeError(
        f"a hook target must be a dotted path string or a HookTarget from "
        f"sglang.sdk.hook_target(), not {type(target).__name__}"
    )
