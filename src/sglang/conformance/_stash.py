"""Where the run's suite object lives: the pytest config's stash.

Its own module, so that the fixtures reach the suite without importing the
session module that registers them.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["SUITE_KEY", "suite_of"]

SUITE_KEY: pytest.StashKey[Any] = pytest.StashKey()
"""The stash key of the run's :class:`sglang.conformance._session.Suite`."""


def suite_of(config: pytest.Config) -> Any:
    """Return the run's suite (set only with ``--sglang-conformance``)."""
    return config.stash[SUITE_KEY]
