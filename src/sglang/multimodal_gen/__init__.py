"""SGLang Diffusion (``multimodal_gen``): the offline facade and the documented paths.

``from sglang.multimodal_gen import DiffGenerator`` binds a lazy proxy: it
imports no module of :mod:`sglang.multimodal_gen.runtime` and no torch, so
an offline script may bind it at module scope (spawn re-runs that scope in
every worker) and call ``DiffGenerator.from_pretrained(...)`` under
``if __name__ == "__main__":``. :class:`SamplingParams` and
:class:`PipelineConfig` load on first access; use them inside the
``__main__`` guard or the functions that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sglang.multimodal_gen._proxy import DiffGenerator

if TYPE_CHECKING:
    from sglang.multimodal_gen.configs.pipeline_config import PipelineConfig
    from sglang.multimodal_gen.configs.sampling_params import SamplingParams

__all__ = ["DiffGenerator", "PipelineConfig", "SamplingParams"]

_LAZY = {
    "SamplingParams": "sglang.multimodal_gen.configs.sampling_params",
    "PipelineConfig": "sglang.multimodal_gen.configs.pipeline_config",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
