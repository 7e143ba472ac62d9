"""The README's offline quick start runs as written (with the model in a temporary folder)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support.dists import REPO_ROOT
from tests.support.isolation import clean_environment, plugin_free_env

README = REPO_ROOT / "README.md"


def _quick_start() -> str:
    blocks: list[str] = re.findall(
        r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL
    )
    (block,) = [b for b in blocks if "make_model" in b]
    return block


def test_the_offline_quick_start_generates(tmp_path: Path) -> None:
    script = _quick_start().replace("/tmp/tiny-llama", str(tmp_path / "tiny-llama"))
    python = str(clean_environment().python)
    env = {**plugin_free_env(), "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-euc", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "'finish_reason': {'type': 'length'}" in result.stdout
