"""Who registered a hook: :class:`PluginSource` and the context variable carrying it.

The plugin loader sets :data:`_current_plugin_source` while it imports a
general plugin's module and while it runs the plugin's callback, and
platform selection sets it while it imports and calls a platform plugin's
activation callback and while it imports and constructs that plugin's
platform class. Every hook registered during that time records which entry
point (and which distribution) it belongs to, without the plugin passing
anything along.

Standard library and the sdk's record base only: platform selection imports this module, and must
not pay for the hook engine (:mod:`sglang.runtime.hooks`, which re-exports
these names).
"""

from __future__ import annotations

import contextvars

from sglang.sdk._record import Record

__all__ = ["PLUGINS_LOGGER", "PluginSource", "current_plugin_source", "plugin_source"]

PLUGINS_LOGGER = "sglang.plugins"
"""The logger every plugin-loading and hook-application message goes to."""


class PluginSource(Record):
    """The plugin entry point a hook came from.

    A general plugin (group ``sglang.srt.plugins`` or
    ``sglang.multimodal_gen.plugins``), or a platform plugin whose module or
    platform class registered hooks while selection loaded it (a platforms
    group).

    Attributes:
        name: The entry-point name (what ``SGLANG_PLUGINS`` or the platform
            selector variable names).
        dist_name: The distribution that declared the entry point.
        dist_version: That distribution's version.
        group: The entry-point group, for example ``"sglang.srt.plugins"``
            or ``"sglang.srt.platforms"``.
    """

    name: str
    dist_name: str
    dist_version: str
    group: str

    @property
    def is_platform(self) -> bool:
        """Whether the entry point is a platform plugin (a ``*.platforms`` group)."""
        return self.group.endswith(".platforms")

    def describe(self) -> str:
        """``plugin 'name' (distribution dist 1.0)``, for messages.

        ``platform plugin 'name' (...)`` for a platform entry point.
        """
        kind = "platform plugin" if self.is_platform else "plugin"
        return f"{kind} {self.name!r} (distribution {self.dist_name} {self.dist_version})"


_current_plugin_source: contextvars.ContextVar[PluginSource | None] = contextvars.ContextVar(
    "sglang_current_plugin_source", default=None
)
"""The plugin entry point whose module is being imported or whose callback is running, if any."""


def current_plugin_source() -> PluginSource | None:
    """Return the plugin being loaded in this context, or ``None`` outside plugin loading."""
    return _current_plugin_source.get()


class plugin_source:
    """Attribute every hook registered inside the ``with`` block to *source*.

    A plain context manager class rather than :func:`contextlib.contextmanager`,
    which platform selection would pay for on the way to ``current_platform``.
    """

    __slots__ = ("_source", "_tokens")

    def __init__(self, source: PluginSource | None) -> None:
        self._source = source
        self._tokens: list[contextvars.Token[PluginSource | None]] = []

    def __enter__(self) -> None:
        self._tokens.append(_current_plugin_source.set(self._source))

    def __exit__(self, *exc_info: object) -> None:
        _current_plugin_source.reset(self._tokens.pop())
