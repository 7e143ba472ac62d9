"""Every entry-point group, environment variable and API version, once.

Each name the plugin system reads from the outside world is one constant in
this module; the engine, the CLI and the docs all refer to these objects, so
that a rename happens in exactly one place.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal

__all__ = [
    "ALL_ENTRY_POINT_GROUPS",
    "DIFFUSION_PLATFORMS_GROUP",
    "DIFFUSION_PLATFORM_API_VERSION",
    "DIFFUSION_PLUGINS_GROUP",
    "ENV_CHECK_KV_ACCOUNTING",
    "ENV_DIFFUSION_PLATFORM_OVERRIDE",
    "ENV_PLATFORM",
    "ENV_PLUGINS",
    "ENV_USE_CPU_ENGINE",
    "SERVE_BACKENDS_GROUP",
    "SERVE_BACKEND_API_VERSION",
    "SRT_PLATFORMS_GROUP",
    "SRT_PLATFORM_API_VERSION",
    "SRT_PLUGINS_GROUP",
    "SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS",
    "SUPPORTED_HOOK_API_VERSIONS",
    "SUPPORTED_SERVE_BACKEND_API_VERSIONS",
    "SUPPORTED_SRT_PLATFORM_API_VERSIONS",
    "DiffusionPlatformApiVersion",
    "HookApiVersion",
    "SRTPlatformApiVersion",
    "ServeBackendApiVersion",
]

# -- Entry-point groups -------------------------------------------------------

SRT_PLATFORMS_GROUP: Final = "sglang.srt.platforms"
"""Entry points of SRT platform plugins: ``name = "pkg.mod:activate"``."""

SRT_PLUGINS_GROUP: Final = "sglang.srt.plugins"
"""Entry points of SRT general (hook) plugins: ``name = "pkg.mod:register"``."""

DIFFUSION_PLATFORMS_GROUP: Final = "sglang.multimodal_gen.platforms"
"""Entry points of diffusion platform plugins."""

DIFFUSION_PLUGINS_GROUP: Final = "sglang.multimodal_gen.plugins"
"""Entry points of diffusion general (hook) plugins."""

SERVE_BACKENDS_GROUP: Final = "sglang.serve_backends"
"""Entry points of ``sglang serve`` backends: argument-less backend factories."""

ALL_ENTRY_POINT_GROUPS: Final = (
    SRT_PLATFORMS_GROUP,
    SRT_PLUGINS_GROUP,
    DIFFUSION_PLATFORMS_GROUP,
    DIFFUSION_PLUGINS_GROUP,
    SERVE_BACKENDS_GROUP,
)
"""Every entry-point group the plugin system reads, in a stable order."""

# -- Environment variables ----------------------------------------------------

ENV_PLATFORM: Final = "SGLANG_PLATFORM"
"""Selects the SRT platform plugin by entry-point name (explicit selection)."""

ENV_DIFFUSION_PLATFORM_OVERRIDE: Final = "SGLANG_DIFFUSION_PLATFORM_OVERRIDE"
"""Selects the diffusion platform: a built-in alias or an entry-point name."""

ENV_PLUGINS: Final = "SGLANG_PLUGINS"
"""Comma-separated allowlist of general-plugin names (and of auto-discovered
SRT platform plugins while :data:`ENV_PLATFORM` is unset)."""

ENV_USE_CPU_ENGINE: Final = "SGLANG_USE_CPU_ENGINE"
"""``1`` makes SRT fall back to the CPU platform when no plugin activates."""

ENV_CHECK_KV_ACCOUNTING: Final = "SGLANG_CHECK_KV_ACCOUNTING"
"""``1`` makes the SRT scheduler check, after every step, that free pages, pages
only the prefix cache holds and pages requests hold add up to the KV pool
(a debugging switch; the test suite runs with it on)."""

# -- API versions -------------------------------------------------------------
#
# Each contract a plugin implements has a version. A plugin states the version
# it was written against as a literal (never a copy of the current constant),
# so that a later release can recognise an older contract. The ``*ApiVersion``
# types are the literals a plugin may write; the ``SUPPORTED_*`` sets are what
# this release accepts (every one but the current is deprecated: accepted with
# one WARNING, for one minor release, see the compatibility page).

if TYPE_CHECKING:
    ServeBackendApiVersion = Literal[1]
    """The serve-backend API versions a plugin may declare, as a type."""

    SRTPlatformApiVersion = Literal[1]
    """The SRT platform contract versions a platform class may declare, as a type."""

    DiffusionPlatformApiVersion = Literal[1]
    """The diffusion platform contract versions a platform class may declare, as a type."""

    HookApiVersion = Literal[1]
    """The hook-signature versions a registration may state (``api_version=``), as a type."""
else:
    _LITERALS = {
        "ServeBackendApiVersion": (1,),
        "SRTPlatformApiVersion": (1,),
        "DiffusionPlatformApiVersion": (1,),
        "HookApiVersion": (1,),
    }

    def __getattr__(name: str) -> object:
        # built on first use: typing is not imported on the way to current_platform
        versions = _LITERALS.get(name)
        if versions is not None:
            from typing import Literal

            value = globals()[name] = Literal[versions]
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


del TYPE_CHECKING  # not a constant


SERVE_BACKEND_API_VERSION: Final = 1
"""The serve-backend API version this release implements.

Plugins declare the version they were written against as a literal
(``ServeBackend(api_version=1, ...)``); they must not copy this constant,
so that a later release can recognise an older contract.
"""

SUPPORTED_SERVE_BACKEND_API_VERSIONS: Final = frozenset({1})
"""Every serve-backend API version this release accepts."""

SRT_PLATFORM_API_VERSION: Final = 1
"""The SRT platform contract version this release implements.

A platform class declares the version it implements in its body,
``api_version: ClassVar[Literal[1]] = 1``; the sdk's base classes do not
set it, so inheriting never claims a version. A class without it is
treated as version 1 and reported as undeclared by ``sglang plugins check``.
"""

SUPPORTED_SRT_PLATFORM_API_VERSIONS: Final = frozenset({1})
"""Every SRT platform contract version this release accepts."""

DIFFUSION_PLATFORM_API_VERSION: Final = 1
"""The diffusion platform contract version this release implements (declared like SRT's)."""

SUPPORTED_DIFFUSION_PLATFORM_API_VERSIONS: Final = frozenset({1})
"""Every diffusion platform contract version this release accepts."""

SUPPORTED_HOOK_API_VERSIONS: Final = frozenset({1})
"""Every hook-signature version some documented hook target accepts.

Each documented target has its own version (:data:`sglang.sdk.targets.HOOK_TARGETS`);
a registration states the one it was written against with ``api_version=``.
"""
