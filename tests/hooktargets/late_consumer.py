"""Imported only after hooks were applied: its ``from x import f`` sees the patch."""

from __future__ import annotations

from tests.hooktargets.basic import add

__all__ = ["add"]
