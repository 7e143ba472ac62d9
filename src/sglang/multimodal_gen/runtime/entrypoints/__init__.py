"""Entry points of SGLang Diffusion: the offline generator, the HTTP server and its
``sglang serve`` backend."""
