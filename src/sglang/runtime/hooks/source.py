"""Who registered a hook: :class:`PluginSource` and the context variable carrying it.

The plugin loader sets :data:`_current_plugin_source` while it imports a
plugin's module and while it runs the plugin's callback, so every hook
registered during that time records which plugin (and which distribution)
it belongs to, without the plugin passing anything along.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["PluginSource", "current_plugin_source", "plugin_source"]


@dataclass(frozen=True)
class PluginSource:
    """The general plugin a hook came from.

    Attributes:
        name: The plugin's entry-point name (what ``SGLANG_PLUGINS`` lists).
        dist_name: The distribution that declared the entry point.
        dist_version: That distribution's version.
        group: The entry-point group, for example ``"sglang.srt.plugins"``.
    """

    name: str
    dist_name: str
    dist_version: str
    group: str

    def describe(self) -> str:
        """``plugin 'name' (distribution dist 1.0)``, for messages."""
        return f"plugin {self.name!r} (distribution {self.dist_name} {self.dist_version})"


_current_plugin_source: contextvars.ContextVar[PluginSource | None] = contextvars.ContextVar(
    "sglang_current_plugin_source", default=None
)
"""The plugin whose module is being imported or whose callback is running, if any."""


def current_plugin_source() -> PluginSource | None:
    """Return the plugin being loaded in this context, or ``None`` outside plugin loading."""
    return _current_plugin_source.get()


@contextmanager
def plugin_source(source: PluginSource | None) -> Iterator[None]:
    """Attribute every hook registered inside the ``with`` block to *source*."""
    token = _current_plugin_source.set(source)
    try:
        yield
    finally:
        _current_plugin_source.reset(token)
