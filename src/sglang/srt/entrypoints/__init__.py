"""Entry points of the reference SRT runtime: the offline ``Engine``."""
