"""Entry points of the SGLang Diffusion runtime: its ``sglang serve`` backend."""
