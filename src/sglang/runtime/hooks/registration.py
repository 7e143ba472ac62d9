"""Registering hooks: the first half of a runtime's :class:`~sglang.runtime.hooks.HookRegistry`.

:class:`HookRegistrations` holds a registry's state and its two
registration forms, :meth:`~HookRegistrations.register` and the decorator
:meth:`~HookRegistrations.plugin_hook`, whose overloads let mypy and pyright
check a hook against a typed target. Registration only records the hook;
nothing is imported. :class:`~sglang.runtime.hooks.HookRegistry` adds
applying, restoring, the failure policy and the reports.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar, overload

from sglang.runtime.discovery import normalize_dist_name
from sglang.runtime.hooks.report import HookStatus
from sglang.runtime.hooks.state import Entry, RegistryState
from sglang.runtime.hooks.targets import TargetPath, parse_target
from sglang.runtime.plugin_source import PLUGINS_LOGGER, PluginSource, _current_plugin_source
from sglang.runtime.spec import RuntimeSpec
from sglang.sdk.constants import HookApiVersion
from sglang.sdk.hooks import (
    AfterHook,
    AroundHook,
    BeforeHook,
    ClassmethodTarget,
    HookTarget,
    HookType,
    ReplaceHook,
)

__all__ = ["HookRegistrations"]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
H = TypeVar("H", bound=Callable[..., object])


class HookRegistrations:
    """One runtime's hook registrations: the base of :class:`~sglang.runtime.hooks.HookRegistry`.

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

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: BeforeHook[P],
        hook_type: Literal[HookType.BEFORE],
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
    ) -> BeforeHook[P]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: AfterHook[R, P],
        hook_type: Literal[HookType.AFTER],
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
    ) -> AfterHook[R, P]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: AroundHook[P, R],
        hook_type: Literal[HookType.AROUND],
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
    ) -> AroundHook[P, R]: ...

    @overload
    def register(
        self,
        target: HookTarget[P, R],
        hook: ReplaceHook[P, R],
        hook_type: Literal[HookType.REPLACE],
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
    ) -> ReplaceHook[P, R]: ...

    @overload
    def register(
        self,
        target: str,
        hook: H,
        hook_type: HookType,
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
    ) -> H: ...

    def register(
        self,
        target: object,
        hook: Callable[..., Any],
        hook_type: HookType,
        *,
        source: PluginSource | None = None,
        api_version: HookApiVersion | None = None,
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
            api_version: The version of the target's signature the hook was
                written against (a documented target's, see
                :data:`sglang.sdk.targets.HOOK_TARGETS`). When the target no
                longer has it, :meth:`apply_hooks` refuses the hook, naming
                the plugin, the target and both versions; a deprecated one
                applies with one WARNING. Ignored for undocumented targets.

        Raises:
            TypeError: if *hook_type* is not a :class:`HookType`, *hook* is not
                callable, *hook* is a class with a type other than REPLACE, or
                *api_version* is neither an ``int`` nor ``None``.
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
        version: object = api_version
        if version is not None and type(version) is not int:
            raise TypeError(
                f"api_version for target {path.text!r} must be an int literal "
                f"(for example api_version=1) or None, not {version!r}"
            )
        if source is None:
            source = _current_plugin_source.get()
        with self._lock:
            state = self._state
            entry = Entry(next(state.counter), path, hook, hook_type, source, api_version)
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
    # fmt: off
    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.BEFORE],
        api_version: HookApiVersion | None = None,
    ) -> Callable[[BeforeHook[Concatenate[type[T], P]]], BeforeHook[Concatenate[type[T], P]]]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.AFTER],
        api_version: HookApiVersion | None = None,
    ) -> Callable[
        [AfterHook[R, Concatenate[type[T], P]]], AfterHook[R, Concatenate[type[T], P]]
    ]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.AROUND],
        api_version: HookApiVersion | None = None,
    ) -> Callable[
        [AroundHook[Concatenate[type[T], P], R]], AroundHook[Concatenate[type[T], P], R]
    ]: ...

    @overload
    def plugin_hook(  # pyright: ignore[reportOverlappingOverload]
        self, target: ClassmethodTarget[T, P, R], *, type: Literal[HookType.REPLACE],
        api_version: HookApiVersion | None = None,
    ) -> Callable[
        [ReplaceHook[Concatenate[type[T], P], R]], ReplaceHook[Concatenate[type[T], P], R]
    ]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.BEFORE],
        api_version: HookApiVersion | None = None,
    ) -> Callable[[BeforeHook[P]], BeforeHook[P]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.AFTER],
        api_version: HookApiVersion | None = None,
    ) -> Callable[[AfterHook[R, P]], AfterHook[R, P]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.AROUND],
        api_version: HookApiVersion | None = None,
    ) -> Callable[[AroundHook[P, R]], AroundHook[P, R]]: ...

    @overload
    def plugin_hook(
        self, target: HookTarget[P, R], *, type: Literal[HookType.REPLACE],
        api_version: HookApiVersion | None = None,
    ) -> Callable[[ReplaceHook[P, R]], ReplaceHook[P, R]]: ...
    # fmt: on

    @overload
    def plugin_hook(
        self, target: str, *, type: HookType, api_version: HookApiVersion | None = None
    ) -> Callable[[H], H]: ...

    def plugin_hook(
        self, target: object, *, type: HookType, api_version: HookApiVersion | None = None
    ) -> Any:
        """Decorator form of :meth:`register`: ``@plugin_hook(target, type=HookType.AROUND)``.

        The decorated function (or class, for REPLACE of a class) is
        registered and returned unchanged; *api_version* is
        :meth:`register`'s.
        """
        path = _target_path(target).text  # a bad path fails where the decorator is written
        hook_type = type

        def decorator(hook: Callable[..., Any]) -> Callable[..., Any]:
            self.register(path, hook, hook_type, api_version=api_version)
            return hook

        return decorator


def _target_path(target: object) -> TargetPath:
    if isinstance(target, HookTarget):
        return parse_target(target.path)
    if isinstance(target, str):
        return parse_target(target)
    raise TypeError(
        f"a hook target must be a dotted path string or a HookTarget from "
        f"sglang.sdk.hook_target(), not {type(target).__name__}"
    )
