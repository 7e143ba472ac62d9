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
    "DIFFUSION_PLUGINS_GROUP",
    "ENV_CHECK_KV_ACCOUNTING",
    "ENV_DIFFUSION_PLATFORM_OVERRIDE",
    "ENV_PLATFORM",
    "ENV_PLUGINS",
    "ENV_USE_CPU_ENGINE",
    "SERVE_BACKENDS_GROUP",
    "SERVE_BACKEND_API_VERSION",
    "SRT_PLATFORMS_GROUP",
    "SRT_PLUGINS_GROUP",
    "SUPPORTED_SERVE_BACKEND_API_VERSIONS",
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

if TYPE_CHECKING:
    ServeBackendApiVersion = Literal[1]
    """The serve-backend API versions a plugin may declare, as a type."""
else:

    def __getattr__(name: str) -> object:
        # built on first use: typing is not imported on the way to current_platform
        if name == "ServeBackendApiVersion":
            from typing import Literal

            value = globals()[name] = Literal[1]
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
