"""The plugin guide's two quick starts, installed with pip as the guide says, then used.

``examples/my_platform_plugin`` (an SRT platform for ``my_device``) and
``examples/my_general_plugin`` (an AROUND hook on ``Scheduler.__init__``)
mirror the guide's minimal packages file for file. Both go into one
temporary venv; the guide's verification command names the platform, and a
generation runs on it with the hook firing in the scheduler process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sglang.testing.make_model import make_model
from tests.support.examples import install_examples, run_in

PRESENT = {"MY_DEVICE_AVAILABLE": "1"}  # the stand-in device is present only when told

VERIFY = "from sglang.srt.platforms import current_platform; print(current_platform)"

GENERATE = """
import os
from sglang.srt.entrypoints.engine import Engine
from sglang.srt.platforms import current_platform
if __name__ == "__main__":
    print("PLATFORM", type(current_platform).__name__)
    with Engine(model_path={model!r}, max_total_tokens=256) as engine:
        out = engine.generate("Hello world", {{"temperature": 0, "max_new_tokens": 6}})
    print("IDS", out["output_ids"])
"""


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quickstart-venv")
    return install_examples(root, "my_platform_plugin", "my_general_plugin")


def test_the_verification_command_names_the_platform(venv_python: Path) -> None:
    out = run_in(venv_python, VERIFY, PRESENT).check().stdout
    assert "MySRTPlatform" in out
    assert "my-platform-plugin" in out  # the distribution that provided it
    assert "my_device" in out


def test_an_unavailable_device_steps_aside(venv_python: Path) -> None:
    code = "from sglang.srt.platforms import current_platform as p; print(type(p).__name__)"
    out = run_in(venv_python, code, {"SGLANG_USE_CPU_ENGINE": "1"})  # not told: absent
    assert out.check().stdout.strip() == "CpuSRTPlatform"


def test_a_generation_runs_on_my_device_with_the_hook(venv_python: Path, tmp_path: Path) -> None:
    model = make_model(tmp_path / "model", arch="llama")
    code = GENERATE.format(model=str(model))
    mine = run_in(venv_python, code, PRESENT, timeout=300).check()
    assert "PLATFORM MySRTPlatform" in mine.stdout
    # the hook ran in the scheduler process, whose output reaches the same stdout
    assert "Scheduler initialized! gpu_id=0" in mine.stdout
    cpu = run_in(venv_python, code, {"SGLANG_USE_CPU_ENGINE": "1"}, timeout=300).check()
    assert "PLATFORM CpuSRTPlatform" in cpu.stdout
    assert mine.stdout.split("IDS ")[1] == cpu.stdout.split("IDS ")[1]
