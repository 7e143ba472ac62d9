"""``DiffGenerator`` end to end from offline scripts: real spawn, real workers, real images."""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.diffusion.support import result_json, run_script
from tests.support.isolation import clean_environment
from tests.support.processes import HAS_PROC, wait_gone

OFFLINE = """
    import json, os, sys
    from sglang.multimodal_gen import DiffGenerator  # a proxy: imports nothing yet

    if __name__ == "__main__":
        from PIL import Image
        from sglang.multimodal_gen import SamplingParams
        from sglang.runtime.bootstrap import WorkerFailedError

        out = {{"parent_runtime_before": sorted(
            m for m in sys.modules if m.startswith("sglang.multimodal_gen.runtime.managers.gpu")
        )}}
        with DiffGenerator.from_pretrained(model_path={model!r}, sp_degree=1) as gen:
            one = gen.generate("a red fox", {{"seed": 5}}, output_path={out!r})
            again = gen.generate("a red fox", SamplingParams(seed=5))
            other = gen.generate("a red fox", {{"seed": 6}})
            batch = gen.generate(["a red fox", "a cat"], {{"seed": 5, "width": 32}})
            guided_params = {{"seed": 5, "guidance_scale": 3.0, "negative_prompt": "dog"}}
            guided = gen.generate("a cat", guided_params)
            try:
                gen.generate("x", {{"height": 20}})
            except ValueError as exc:
                out["bad_size"] = str(exc)
            out["worker_pids"] = [info["pid"] for info in gen.worker_info.values()]
        out["types"] = [type(one).__name__, type(batch).__name__, type(batch[0]).__name__]
        out["is_pil"] = isinstance(one, Image.Image)
        out["sizes"] = [one.size, batch[0].size]
        out["deterministic"] = one.tobytes() == again.tobytes()
        out["batch_first_equals_single_in_width_32"] = batch[0].size == (32, 64)
        out["seed_changes_image"] = one.tobytes() != other.tobytes()
        out["guided_differs"] = guided.tobytes() != one.tobytes()
        out["extrema"] = one.getextrema()
        out["pngs"] = sorted(os.listdir({out!r}))
        try:
            DiffGenerator.from_pretrained(model_path={missing!r})
        except WorkerFailedError as exc:
            out["failure"] = str(exc)
            out["failure_traceback"] = exc.child_traceback
        print("RESULT " + json.dumps(out))
"""


def test_offline_script_layout_images_pngs_determinism_and_a_failed_child(
    tmp_path: Path, tiny_model: Path
) -> None:
    pngs = tmp_path / "pngs"
    code = OFFLINE.format(model=str(tiny_model), out=str(pngs), missing=str(tmp_path / "nope"))
    result = run_script(tmp_path, code)
    out = result_json(result)
    assert out["parent_runtime_before"] == []
    assert out["types"] == ["Image", "list", "Image"]
    assert out["is_pil"] is True
    assert out["sizes"] == [[64, 64], [32, 64]]
    assert out["deterministic"] is True
    assert out["seed_changes_image"] is True
    assert out["guided_differs"] is True
    assert out["pngs"] == ["0000_0_a_red_fox.png"]
    assert "multiples of 16" in str(out["bad_size"])
    extrema = out["extrema"]
    assert isinstance(extrema, list)
    assert any(high - low > 64 for low, high in extrema)  # a real picture, not flat grey
    # the failed child's own error and traceback reach the parent
    assert "model_index.json is missing" in str(out["failure"])
    assert "FileNotFoundError" in str(out["failure_traceback"])
    assert "read_layout" in str(out["failure_traceback"])
    assert "diffusion worker rank 0" in result.stderr  # the start-up log line
    worker_pids = out["worker_pids"]
    assert isinstance(worker_pids, list)
    assert wait_gone(worker_pids, timeout=10)


SP = """
    import json
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        params = {{"seed": 11, "num_inference_steps": 4}}
        with DiffGenerator.from_pretrained(model_path={model!r}, sp_degree=2) as gen:
            two = gen.generate(["a red fox", "a blue sea"], params)
            ranks = sorted(gen.worker_info)
        with DiffGenerator.from_pretrained(model_path={model!r}, sp_degree=1) as gen:
            one = gen.generate(["a red fox", "a blue sea"], params)
        diffs = []
        for a, b in zip(one, two):
            pa, pb = a.tobytes(), b.tobytes()
            diffs.append(sum(abs(x - y) for x, y in zip(pa, pb)) / len(pa))
        print("RESULT " + json.dumps({{"ranks": ranks, "diffs": diffs}}))
"""


def test_sequence_parallel_two_ranks_equals_one(tmp_path: Path, tiny_model: Path) -> None:
    out = result_json(run_script(tmp_path, SP.format(model=str(tiny_model))))
    assert out["ranks"] == [0, 1]
    diffs = out["diffs"]
    assert isinstance(diffs, list)
    assert all(d <= 0.5 for d in diffs), diffs


EARLY = """
    from sglang.multimodal_gen import DiffGenerator
    from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm  # too early: module scope

    if __name__ == "__main__":
        with DiffGenerator.from_pretrained(model_path={model!r}) as gen:
            gen.generate("x", {{"num_inference_steps": 1}})
        print("DONE")
"""


def test_a_child_warns_naming_runtime_modules_imported_before_its_hooks(
    tmp_path: Path, tiny_model: Path
) -> None:
    result = run_script(tmp_path, EARLY.format(model=str(tiny_model))).check()
    assert "DONE" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "already imported" in line]
    assert len(warnings) == 1, result.stderr
    assert "diffusion scheduler rank 0 started with runtime modules already imported" in warnings[0]
    assert "sglang.multimodal_gen.runtime.layers.layernorm" in warnings[0]
    assert "sglang.multimodal_gen.runtime.layers.custom_op" in warnings[0]


LEFT_RUNNING = """
    import json
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        gen = DiffGenerator.from_pretrained(model_path={model!r})
        print("RESULT " + json.dumps({{"pids": [i["pid"] for i in gen.worker_info.values()]}}))
        # no shutdown(): the interpreter's exit stops the workers
"""


def test_a_script_that_never_shuts_down_ends_by_itself(tmp_path: Path, tiny_model: Path) -> None:
    import time

    start = time.monotonic()
    result = run_script(tmp_path, LEFT_RUNNING.format(model=str(tiny_model)), timeout=120)
    pids = result_json(result)["pids"]
    elapsed = time.monotonic() - start
    assert isinstance(pids, list)
    assert wait_gone(pids, timeout=5)
    assert "failed" not in result.stderr  # asked to stop, not cut off mid-message
    assert elapsed < 90


ORPHAN = """
    import os, sys
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        gen = DiffGenerator.from_pretrained(model_path={model!r})
        print("WORKERS", *[info["pid"] for info in gen.worker_info.values()], flush=True)
        os.kill(os.getpid(), 9)  # no exit handlers run
"""


@pytest.mark.skipif(not HAS_PROC, reason="reads process states from /proc")
def test_workers_die_with_their_parent(tmp_path: Path, tiny_model: Path) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(textwrap.dedent(ORPHAN.format(model=str(tiny_model))), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    proc = subprocess.run(
        [str(clean_environment().python), str(script)],
        capture_output=True, text=True, env=env, timeout=240, check=False,
    )  # fmt: skip
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("WORKERS "))
    pids = [int(x) for x in line.split()[1:]]
    assert pids
    assert wait_gone(pids, timeout=15)
