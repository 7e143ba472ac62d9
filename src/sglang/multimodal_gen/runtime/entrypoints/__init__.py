"""Entry points of SGLang Diffusion: the offline generator and the HTTP server."""
