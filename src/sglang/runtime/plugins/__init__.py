"""General-plugin loading for both runtimes."""
