"""End-to-end [E2E]: the reference runtimes generate on the device as they do on the CPU.

The test model is generated (``sglang.testing.make_model``, tiny, float32);
generation is greedy. The CPU reference runs in its own interpreter with the
built-in CPU platform selected.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from sglang.conformance import _probes
from sglang.conformance._clauses import clause
from sglang.conformance._target import Target
from sglang.sdk import constants

__all__ = ["PROMPTS", "TestEndToEnd", "device_ids", "make_test_model"]

PROMPTS = ("Hello world", "The quick brown fox")
"""What the test model is asked to continue."""

_SCRIPT = """
import json, sys
from sglang.srt.entrypoints.engine import Engine
if __name__ == "__main__":
    model, tp = sys.argv[1], int(sys.argv[2])
    with Engine(model_path=model, tp_size=tp, dtype="float32", max_total_tokens=256) as engine:
        out = engine.generate({prompts!r}, {{"temperature": 0, "max_new_tokens": 8}})
    print("\\nIDS " + json.dumps([o["output_ids"] for o in out]))
"""


def _generate(model: Path, tp: int, cpu: bool = False) -> list[list[int]]:
    env = None
    if cpu:
        env = {constants.ENV_USE_CPU_ENGINE: "1", constants.ENV_PLUGINS: ""}
    script = _SCRIPT.format(prompts=list(PROMPTS))
    child_env = dict(env or {})
    if cpu:
        child_env[constants.ENV_PLATFORM] = ""
    proc = _probes.run_python(["-c", script, str(model), str(tp)], env=child_env, timeout=600)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("IDS "):
            ids: list[list[int]] = json.loads(line[4:])
            return ids
    where = "the CPU reference" if cpu else f"the device run (tp_size={tp})"
    pytest.fail(f"{where} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")


@functools.cache
def make_test_model() -> Path:
    """The tiny generated llama checkpoint (made once per process, removed at exit)."""
    from sglang.testing.make_model import make_model

    folder = Path(tempfile.mkdtemp(prefix="sglang-conformance-model-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return make_model(folder / "llama", arch="llama")


@pytest.fixture
def sglang_test_model() -> Path:
    """The tiny generated llama checkpoint."""
    return make_test_model()


@functools.cache
def device_ids(model: Path) -> list[list[int]]:
    """The device's greedy tokens with one rank (generated once per process)."""
    return _generate(model, 1)


def _is_builtin_cpu(target: Target) -> bool:
    return target.is_builtin and getattr(target.platform, "is_cpu", lambda: False)()


class TestEndToEnd:
    """Whole generations through the reference runtimes."""

    @clause("E2E-01")
    def test_srt_matches_cpu(
        self, sglang_target: Target, sglang_platform: Any, sglang_test_model: Path
    ) -> None:
        """Greedy tokens on the device equal the built-in CPU platform's."""
        sglang_device_ids = device_ids(sglang_test_model)
        assert all(len(ids) > 0 for ids in sglang_device_ids), sglang_device_ids
        if _is_builtin_cpu(sglang_target):
            return  # the device is the CPU: this run is the reference
        reference = _generate(sglang_test_model, 1, cpu=True)
        assert sglang_device_ids == reference, (
            f"the device generated {sglang_device_ids}, the CPU {reference}"
        )

    @clause("E2E-02")
    def test_two_ranks_agree(self, sglang_platform: Any, sglang_test_model: Path) -> None:
        """``tp_size=2`` with the platform's distributed backend generates what one rank does."""
        sglang_device_ids = device_ids(sglang_test_model)
        two = _generate(sglang_test_model, 2)
        assert two == sglang_device_ids, f"two ranks generated {two}, one rank {sglang_device_ids}"

    @clause("E2E-03")
    def test_diffusion_generates(self, sglang_platform: Any, tmp_path: Path) -> None:
        """The reference diffusion pipeline (``DiffGenerator``) generates on the device."""
        try:
            from sglang.multimodal_gen import DiffGenerator  # type: ignore[attr-defined]
        except ImportError as exc:
            pytest.skip(f"sglang.multimodal_gen.DiffGenerator is not importable ({exc})")
        from sglang import testing

        make = getattr(testing, "make_diffusion_model", None)
        assert make is not None, "sglang.testing.make_diffusion_model is missing"
        model = make(tmp_path / "diffusion")
        generator = DiffGenerator.from_pretrained(model_path=str(model))
        result = generator.generate(prompt="a red square", seed=0)
        assert result is not None, "DiffGenerator.generate() returned nothing"
        os.environ.get("SGLANG_CONFORMANCE_KEEP")  # nothing kept: the result is checked in memory
