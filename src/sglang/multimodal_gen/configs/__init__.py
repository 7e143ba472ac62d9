"""Plain-data configuration of SGLang Diffusion: sampling parameters and pipeline settings."""

from sglang.multimodal_gen.configs.pipeline_config import PipelineConfig
from sglang.multimodal_gen.configs.sampling_params import SamplingParams

__all__ = ["PipelineConfig", "SamplingParams"]
