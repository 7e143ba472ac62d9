"""The documented per-runtime platform functions, written once.

``sglang.srt.platforms`` and ``sglang.multimodal_gen.runtime.platforms``
each expose ``current_platform`` (a lazy module attribute),
``get_selected_platform_dist()``, ``initialize_current_platform()`` and
``get_selection_report()``. Both modules bind them from one
:class:`RuntimePlatformAPI`, which names its runtime by the runtime
variable's name in :mod:`sglang.runtime.spec` and imports the engine
only on first use, so importing a documented module stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from sglang.runtime.selection.report import SelectionReport
    from sglang.runtime.spec import RuntimeSpec

__all__ = ["RuntimePlatformAPI"]


class RuntimePlatformAPI:
    """The platform functions of one runtime.

    Args:
        runtime: The name of the runtime's :class:`~sglang.runtime.spec.RuntimeSpec`
            in :mod:`sglang.runtime.spec` (``"SRT"`` or ``"DIFFUSION"``).
    """

    def __init__(self, runtime: str) -> None:
        self._runtime = runtime

    def spec(self) -> RuntimeSpec:
        """Return the runtime's spec (imports :mod:`sglang.runtime.spec`)."""
        from sglang.runtime import spec as specs

        spec: RuntimeSpec = getattr(specs, self._runtime)
        return spec

    def current_platform(self) -> object:
        """Return the selected platform, selecting it once per process on first use."""
        from sglang.runtime.selection.current import resolve_platform

        return resolve_platform(self.spec())

    def get_selected_platform_dist(self) -> str | None:
        """Return the distribution that provided the platform (``None``: a built-in).

        Selects the platform first if that has not happened yet.
        """
        from sglang.runtime.selection.current import selected_platform_dist

        return selected_platform_dist(self.spec())

    def initialize_current_platform(self) -> None:
        """Run the selected platform's ``init_backend()`` at most once in this process."""
        from sglang.runtime.selection.current import initialize_current_platform

        initialize_current_platform(self.spec())

    def get_selection_report(self) -> SelectionReport:
        """Return what platform selection did and why (selecting it if needed).

        A selection failure is not raised here; it is in the report's ``error``.

        Raises:
            PlatformSelectionError: Called from inside selection (an activation
                callback), when there is no report yet.
        """
        from sglang.runtime.selection.current import selection_report

        report = selection_report(self.spec())
        assert report is not None  # selection has run: resolve defaults to True
        return report

    def module_getattr(self, module: str) -> Callable[[str], object]:
        """Return a PEP 562 ``__getattr__`` for *module* serving ``current_platform``."""

        def __getattr__(name: str) -> object:
            if name == "current_platform":
                return self.current_platform()
            raise AttributeError(f"module {module!r} has no attribute {name!r}")

        return __getattr__
