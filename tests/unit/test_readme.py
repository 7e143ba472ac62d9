"""The README's offline quick start runs as written (with the model in a temporary folder)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from sglang.sdk.constants import SRT_PLATFORMS_GROUP
from tests.support.dists import REPO_ROOT, Dist, Site, run_python
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


_PLUGIN = Dist(
    "readme-device",
    entry_points={SRT_PLATFORMS_GROUP: {"readme_device": "readme_device:activate"}},
    modules={
        "readme_device/__init__.py": """
            from sglang.runtime.builtin.srt import CpuSRTPlatform
            from sglang.sdk.device import PlatformEnum


            class Platform(CpuSRTPlatform):
                _enum = PlatformEnum.OOT


            def activate():
                return "readme_device:Platform"  # its device is present
        """,
    },
)
_WHICH = "from sglang.srt.platforms import current_platform as p; print(type(p).__name__)"


@pytest.mark.parametrize(
    ("env", "selected"),
    [
        ({"SGLANG_USE_CPU_ENGINE": "1"}, "Platform"),
        ({"SGLANG_USE_CPU_ENGINE": "1", "SGLANG_PLUGINS": ""}, "CpuSRTPlatform"),
    ],
    ids=["a present plugin wins", "SGLANG_PLUGINS= keeps it out"],
)
def test_what_the_cpu_engine_flag_does_with_a_plugin_installed(
    tmp_path: Path, env: dict[str, str], selected: str
) -> None:
    """The README's account of ``SGLANG_USE_CPU_ENGINE=1`` next to an installed plugin."""
    text = README.read_text(encoding="utf-8")
    assert "It is a fallback, not an override" in text
    assert "set `SGLANG_PLUGINS=` (empty: no" in text
    site = Site(tmp_path / "site")
    site.install(_PLUGIN)
    out = run_python(_WHICH, path=[site.root], env=env).check().stdout
    assert out.split()[-1] == selected, out
