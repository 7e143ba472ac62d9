"""End-to-end [E2E]: the reference runtimes generate on the device as they do on the CPU.

The test model is generated (``sglang.testing.make_model``, tiny, float32);
generation is greedy. The engine runs with the defaults of ``sglang serve
MODEL``: no ``--max-total-tokens``, so the KV cache is sized from the
platform's memory answers (``get_available_memory()``), as a served model's
is. The CPU reference runs in its own interpreter with the built-in CPU
platform selected.
"""

from __future__ import annotations

import atexit
import functools
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, NoReturn

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
    with Engine(model_path=model, tp_size=tp, dtype="float32") as engine:
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
    where = "the CPU reference" if cpu else f"the device run (tp_size={tp}, default flags)"
    _fail(where, proc)


_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit): .+")


def _failure_cause(stderr: str) -> str:
    """The last ``SomeError: message`` line of a child's *stderr* (its root cause), or ``""``."""
    found = [line for line in stderr.splitlines() if _EXCEPTION_LINE.match(line)]
    return found[-1].strip() if found else ""


def _fail(where: str, proc: subprocess.CompletedProcess[str]) -> NoReturn:
    """Fail with the child's root cause on the first line, then its output's tail."""
    cause = _failure_cause(proc.stderr)
    first = f"{where} failed (exit {proc.returncode})" + (f": {cause}" if cause else "")
    pytest.fail(f"{first}\n{proc.stderr[-4000:]}")


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
    def test_diffusion_matches_cpu(
        self, sglang_target: Target, sglang_platform: Any, tmp_path: Path
    ) -> None:
        """A seeded ``DiffGenerator`` image on the device equals the CPU's (mean diff <= 0.5)."""
        from sglang.testing.make_diffusion_model import make_diffusion_model

        model = make_diffusion_model(tmp_path / "diffusion")
        device = _diffusion_pixels(model, cpu=False)
        assert device, "the device generated an empty image"
        if _is_builtin_cpu(sglang_target):
            return  # the device is the CPU: this run is the reference
        reference = _diffusion_pixels(model, cpu=True)
        assert len(device) == len(reference), "the device's image has another size than the CPU's"
        mean = sum(abs(a - b) for a, b in zip(device, reference, strict=True)) / len(device)
        assert mean <= 0.5, f"mean pixel difference {mean:.3f} of 255 levels (at most 0.5)"


_DIFFUSION_SCRIPT = """
import sys
from sglang.multimodal_gen import DiffGenerator
if __name__ == "__main__":
    params = {"seed": 0, "num_inference_steps": 4}
    with DiffGenerator.from_pretrained(model_path=sys.argv[1]) as generator:
        image = generator.generate("a red square", params)
    print("\\nPIXELS " + image.convert("RGB").tobytes().hex())
"""


def _diffusion_pixels(model: Path, *, cpu: bool) -> bytes:
    """The seeded image's RGB bytes, from the selected platform or the built-in CPU one."""
    env = {constants.ENV_DIFFUSION_PLATFORM_OVERRIDE: "cpu"} if cpu else None
    proc = _probes.run_python(["-c", _DIFFUSION_SCRIPT, str(model)], env=env, timeout=600)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("PIXELS "):
            return bytes.fromhex(line[7:])
    _fail(f"{'the CPU reference' if cpu else 'the device run'} of the diffusion pipeline", proc)
