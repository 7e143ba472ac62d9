"""Every Python example of the documentation runs.

Each ``.. code-block:: python`` of ``docs/index.rst`` and
``docs/guides/*.rst`` (see :mod:`tests.support.guides`) is executed in a
fresh interpreter with the example packages importable, unless a marker
comment right above it says otherwise: ``.. run-by: PATH`` (another test
runs it, as ``tests/integration/test_guide_blocks.py`` does for the
examples that need a server or a pytest session) or ``.. not-run: REASON``
(then it is only type-checked, by ``tests/integration/test_guide_blocks.py``).
"""

from __future__ import annotations

import pytest

from tests.support.dists import REPO_ROOT, run_python
from tests.support.guides import Block, blocks

EXAMPLE_ROOTS = sorted(p for p in (REPO_ROOT / "examples").iterdir() if p.is_dir())
EXAMPLES = blocks("python")


def test_guides_have_examples() -> None:
    assert len(EXAMPLES) >= 8
    assert sum(example.marker is None for example in EXAMPLES) >= 6


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.id for example in EXAMPLES])
def test_guide_example_runs(example: Block) -> None:
    if example.not_run is not None:
        assert example.not_run, f"{example.id}: a not-run example must say why"
        pytest.skip(f"not run here: {example.not_run}")
    if example.run_by is not None:
        pytest.skip(f"run by {example.run_by}")
    result = run_python(
        example.code, path=EXAMPLE_ROOTS, env={"SGLANG_USE_CPU_ENGINE": "1"}, timeout=180
    )
    assert result.returncode == 0, (
        f"{example.id} failed\n--- code\n{example.code}--- stderr\n{result.stderr}"
    )
