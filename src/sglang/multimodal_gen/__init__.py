"""SGLang Diffusion (``multimodal_gen``): documented import paths."""
