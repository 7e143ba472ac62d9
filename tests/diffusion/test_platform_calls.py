"""The runtime calls every Active platform method, in the documented lifecycle order.

A recording platform plugin (``tests.diffusion.support.recording_site``)
writes one line per call and per lifecycle step, tagged with the process id.
"""

from __future__ import annotations

import json
from pathlib import Path

from sglang.sdk.constants import DIFFUSION_PLATFORMS_GROUP
from tests.diffusion.support import ACTIVE_METHODS, recording_site, result_json, run_script
from tests.support.dists import REPO_ROOT, Dist, Site

RUN = """
    import json, os
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        with DiffGenerator.from_pretrained(
            model_path={model!r}, enable_torch_compile=True, attention_backend="torch_sdpa"
        ) as gen:
            gen.generate("a red fox", {{"seed": 1, "num_inference_steps": 2}})
            workers = [info["pid"] for info in gen.worker_info.values()]
        print("RESULT " + json.dumps({{"parent": os.getpid(), "workers": workers}}))
"""


def _events(path: Path) -> list[tuple[int, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        pid, _, text = line.partition(" ")
        rows.append((int(pid), text))
    return rows


def test_every_active_method_is_called_and_the_child_lifecycle_order(
    tmp_path: Path, tiny_model: Path
) -> None:
    site = recording_site(tmp_path / "site")
    events = tmp_path / "events.txt"
    env = {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "recording", "REC_EVENTS": str(events)}
    out = result_json(
        run_script(tmp_path, RUN.format(model=str(tiny_model)), path=[site.root], env=env)
    )
    rows = _events(events)
    parent = out["parent"]
    workers = out["workers"]
    assert isinstance(workers, list)
    (worker,) = workers
    called = {text.removeprefix("call ") for _, text in rows if text.startswith("call ")}
    assert sorted(called & set(ACTIVE_METHODS)) == ACTIVE_METHODS
    assert set(ACTIVE_METHODS) - called == set()
    # the launcher configures, the worker does the rest
    parent_calls = {
        t.removeprefix("call ") for p, t in rows if p == parent and t.startswith("call")
    }
    assert {"apply_server_args_defaults", "enable_dit_layerwise_offload_by_default"} <= parent_calls
    child = [t.removeprefix("lifecycle ") for p, t in rows if p == worker and "lifecycle" in t]
    assert child == [
        "init_backend",
        "load_plugins",
        "apply_plugin_hooks",
        "run_scheduler_process ServerArgs",
        "init_device_and_model rank 0",
    ]
    # general-plugin callbacks run in the launcher too; init_backend only in workers
    launcher = [t for p, t in rows if p == parent and "lifecycle" in t]
    assert "lifecycle load_plugins" in launcher
    assert "lifecycle init_backend" not in launcher
    worker_calls = [t.removeprefix("call ") for p, t in rows if p == worker]
    # the device is bound before the model is built; attention asks for the capability first
    assert worker_calls.index("set_device") < worker_calls.index("get_available_gpu_memory")
    assert worker_calls.index("get_device_capability") < worker_calls.index(
        "get_attn_backend_cls_str"
    )
    assert worker_calls.index("verify_model_arch") < worker_calls.index("optimize_vae")


FAILING = """
    import json
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        from sglang.runtime.bootstrap import WorkerFailedError
        try:
            DiffGenerator.from_pretrained(model_path={model!r})
        except WorkerFailedError as exc:
            print("RESULT " + json.dumps({{"error": str(exc), "stage": exc.stage}}))
"""

RETRY = """
    import json
    from sglang.multimodal_gen.runtime.platforms import initialize_current_platform
    errors = []
    for _ in range(2):
        try:
            initialize_current_platform()
        except Exception as exc:
            errors.append(type(exc).__name__)
    print("RESULT " + json.dumps({"errors": errors}))
"""


def test_init_backend_failure_aborts_start_up_and_is_not_retried(
    tmp_path: Path, tiny_model: Path
) -> None:
    site = recording_site(tmp_path / "site")
    events = tmp_path / "events.txt"
    env = {
        "SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "recording",
        "REC_EVENTS": str(events),
        "REC_FAIL_INIT": "1",
    }
    out = result_json(
        run_script(tmp_path, FAILING.format(model=str(tiny_model)), path=[site.root], env=env)
    )
    assert "recording firmware missing" in str(out["error"])
    assert "initialize_current_platform" in str(out["stage"])
    texts = [text for _, text in _events(events)]
    assert texts.count("lifecycle init_backend") == 1
    assert not any(
        "load_plugins" in t or "init_device" in t
        for t in texts[texts.index("lifecycle init_backend") :]
    )
    events.unlink()
    retry = result_json(run_script(tmp_path, RETRY, path=[site.root], env=env))
    assert retry["errors"] == ["PlatformInitError", "PlatformInitError"]
    assert [text for _, text in _events(events)].count("lifecycle init_backend") == 1


DEMO = """
    import json, os
    from sglang.multimodal_gen import DiffGenerator

    if __name__ == "__main__":
        params = {{"seed": 2, "num_inference_steps": 2}}
        with DiffGenerator.from_pretrained(model_path={model!r}) as gen:
            demo = gen.generate("a red fox", params)
            demo_pid = gen.worker_info[0]["pid"]
        os.environ["SGLANG_DIFFUSION_PLATFORM_OVERRIDE"] = "cpu"  # the next workers use the CPU
        with DiffGenerator.from_pretrained(model_path={model!r}) as gen:
            cpu = gen.generate("a red fox", params)
        print("RESULT " + json.dumps({{"pid": demo_pid, "same": demo.tobytes() == cpu.tobytes()}}))
"""


def test_the_demo_platforms_plugin_rms_norm_runs_the_pipeline(
    tmp_path: Path, tiny_model: Path
) -> None:
    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "sglang-demo-platform",
            "0.1.0",
            entry_points={
                DIFFUSION_PLATFORMS_GROUP: {"demo": "sglang_demo_platform:activate_diffusion"}
            },
        )
    )
    counters = tmp_path / "counters.jsonl"
    env = {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "demo", "SGLANG_DEMO_COUNTERS": str(counters)}
    path = [site.root, REPO_ROOT / "examples" / "demo_platform"]
    out = result_json(run_script(tmp_path, DEMO.format(model=str(tiny_model)), path=path, env=env))
    rows = [json.loads(line) for line in counters.read_text().splitlines()]
    (worker,) = [row for row in rows if row["pid"] == out["pid"]]
    # text encoder 2 + DiT (3 per block x 2 blocks + 1) x 2 steps
    assert worker["diffusion_rms_norm"] == 2 + 7 * 2
    assert out["same"] is True  # the demo op computes what the native op does
