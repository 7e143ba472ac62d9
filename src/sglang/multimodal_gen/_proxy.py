"""The lazy ``DiffGenerator`` proxy the facade exports (imports nothing until used)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.entrypoints.diff_generator import (
        DiffGenerator as _Generator,
    )

__all__ = ["DiffGenerator"]


class DiffGenerator:
    """Lazy stand-in for the runtime's ``DiffGenerator`` (``runtime.entrypoints.diff_generator``).

    Binding it costs nothing; :meth:`from_pretrained` imports the runtime
    and starts the workers.
    """

    def __init__(self) -> None:
        raise TypeError("use DiffGenerator.from_pretrained(model_path=...)")

    @staticmethod
    def from_pretrained(model_path: str | None = None, **kwargs: Any) -> _Generator:
        """Start a generator for the diffusers-layout model at *model_path*.

        Args:
            model_path: The model directory (``model_index.json`` and one folder per component).
            **kwargs: :class:`~sglang.multimodal_gen.runtime.server_args.ServerArgs`
                fields (``sp_degree=``, ``enable_torch_compile=``, ...).

        Returns:
            The running generator (use it as a context manager, or call ``shutdown()``).
        """
        from sglang.multimodal_gen.runtime.entrypoints.diff_generator import (
            DiffGenerator as Generator,
        )

        return Generator.from_pretrained(model_path=model_path, **kwargs)
