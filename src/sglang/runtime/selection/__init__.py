"""Platform selection for both runtimes."""
