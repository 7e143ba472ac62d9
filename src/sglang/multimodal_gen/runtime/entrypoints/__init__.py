"""Entry points of SGLang Diffusion: offline generator, HTTP server, serve backend."""
