"""A target module nothing imports until hooks are applied.

Importing it appends to :data:`IMPORTS` of :mod:`tests.hooktargets`, so a
test can tell whether registration imported it.
"""

from __future__ import annotations

import tests.hooktargets as package

package.IMPORTS.append(__name__)


def compute(x: int) -> int:
    """Return ``x + 1``."""
    return x + 1
