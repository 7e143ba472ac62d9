"""Real importable modules that the hook tests patch by dotted path."""

from __future__ import annotations

IMPORTS: list[str] = []
"""Modules of this package that recorded their import (see :mod:`.lazy`)."""
