"""The version of the ``sglang`` distribution."""

__version__ = "0.1.0"
