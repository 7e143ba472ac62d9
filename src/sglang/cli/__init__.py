"""The ``sglang`` command line and its serve-backend API."""
