"""The diffusion worker processes: the spawn bootstrap and the GPU worker."""
