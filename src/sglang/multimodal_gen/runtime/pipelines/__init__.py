"""The reference text-to-image pipeline: loading, the flow-matching sampler, generation."""

from sglang.multimodal_gen.runtime.pipelines.compile import build_torch_compile_kwargs
from sglang.multimodal_gen.runtime.pipelines.pipeline import TextToImagePipeline
from sglang.multimodal_gen.runtime.pipelines.scheduler import FlowMatchEulerScheduler

__all__ = ["FlowMatchEulerScheduler", "TextToImagePipeline", "build_torch_compile_kwargs"]
