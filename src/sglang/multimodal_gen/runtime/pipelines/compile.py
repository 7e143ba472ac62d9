"""``build_torch_compile_kwargs()``: the platform's compile backend and options."""

from __future__ import annotations

__all__ = ["build_torch_compile_kwargs"]


def build_torch_compile_kwargs() -> dict[str, object]:
    """Return ``torch.compile`` keyword arguments from the current platform.

    ``backend`` is ``get_compile_backend()``; ``options`` is
    ``get_compile_options()`` when it is not empty.
    """
    from sglang.multimodal_gen.runtime.platforms import current_platform

    kwargs: dict[str, object] = {"backend": current_platform.get_compile_backend()}
    options = dict(current_platform.get_compile_options())
    if options:
        kwargs["options"] = options
    return kwargs
