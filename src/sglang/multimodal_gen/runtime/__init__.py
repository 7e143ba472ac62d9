"""The SGLang Diffusion runtime: platforms, plugins and workers."""
