"""SGLang Diffusion on the CPU, as ratios measured in one run.

(a) worker start: a diffusion scheduler child spawned through the shared
    bootstrap until it reports ready (platform initialisation, plugin
    registration, hook application, argument materialisation), against a
    bare ``spawn`` of an empty target started and joined; the whole
    ``DiffGenerator.from_pretrained`` (tiny model built in the worker) is
    shown against the same baseline;
(b) a resolved custom-op call (``RMSNorm`` with a registered forward)
    against calling the chosen function directly (target <= 1.1x);
(c) images per second of ``sp_degree=2`` against ``sp_degree=1``.

Run: ``python benchmarks/bench_diffusion.py [--repeat 5] [--size 128]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, median_ms, print_table


def _empty() -> None:
    """The bare spawn's target."""


def _import_torch() -> None:
    """A spawned target that only imports torch (what every worker pays anyway)."""
    import torch  # noqa: F401


def ready_target(server_args: Any, worker: Any) -> None:
    """A worker target that reports ready at once (after the diffusion steps ran)."""
    worker.ready(None)


def _bare_spawn(target: Any = _empty) -> None:
    process = multiprocessing.get_context("spawn").Process(target=target)
    process.start()
    process.join()


def _bootstrap_start(model: Path) -> None:
    from sglang.multimodal_gen.runtime.managers.worker_bootstrap import (
        STEPS,
        WATCHED_MODULES,
        ServerArgsPayload,
    )
    from sglang.multimodal_gen.runtime.server_args import ServerArgs
    from sglang.runtime.bootstrap import WorkerGroup, WorkerSpec

    payload = ServerArgsPayload.from_server_args(ServerArgs(model_path=str(model)))
    spec = WorkerSpec(
        "bench worker", "bench_diffusion:ready_target", payload, STEPS, 0, WATCHED_MODULES
    )
    with WorkerGroup([spec]) as group:
        group.wait_ready(timeout=120)


def _generator_start(model: Path) -> None:
    from sglang.multimodal_gen import DiffGenerator

    DiffGenerator.from_pretrained(model_path=str(model)).shutdown()


def _op_call(repeat: int) -> list[list[str]]:
    import torch

    from sglang.multimodal_gen.runtime.layers.custom_op import CustomOp
    from sglang.multimodal_gen.runtime.layers.layernorm import RMSNorm
    from sglang.multimodal_gen.runtime.platforms import current_platform

    def chosen(op: RMSNorm, x: torch.Tensor) -> torch.Tensor:
        return op.forward_native(x)

    key = current_platform.get_dispatch_key_name()
    CustomOp.register_oot_forward(RMSNorm, fn=chosen, platform_key=key)
    rows = []
    for shape, calls in (((1, 64), 2000), ((64, 256), 500)):
        op = RMSNorm(shape[1])
        x = torch.randn(*shape)

        def resolved(op: RMSNorm = op, x: torch.Tensor = x, calls: int = calls) -> None:
            for _ in range(calls):
                op(x)

        def direct(op: RMSNorm = op, x: torch.Tensor = x, calls: int = calls) -> None:
            for _ in range(calls):
                chosen(op, x)

        with torch.inference_mode():
            resolved(calls=50)
            base = median_ms(direct, repeat=repeat) / calls * 1000
            ours = median_ms(resolved, repeat=repeat) / calls * 1000
        rows.append(
            [
                f"RMSNorm {shape[0]}x{shape[1]}",
                f"{base:.2f} us",
                f"{ours:.2f} us",
                f"{ours / base:.3f}x",
            ]
        )
    return rows


def _images_per_second(model: Path, size: int, images: int) -> dict[int, float]:
    from sglang.multimodal_gen import DiffGenerator

    params = {"seed": 0, "height": size, "width": size, "num_inference_steps": 8}
    rates = {}
    for sp in (1, 2):
        with DiffGenerator.from_pretrained(model_path=str(model), sp_degree=sp) as gen:
            gen.generate("warm up", {**params, "num_inference_steps": 1})
            start = time.perf_counter()
            for i in range(images):
                gen.generate(f"prompt {i}", params)
            rates[sp] = images / (time.perf_counter() - start)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", type=int, default=128, help="image side for (c), pixels")
    parser.add_argument("--images", type=int, default=4)
    args = parser.parse_args()

    from sglang.testing.make_diffusion_model import make_diffusion_model

    model = make_diffusion_model(Path(tempfile.mkdtemp()) / "tiny")
    print(machine())
    bare = median_ms(_bare_spawn, repeat=args.repeat)
    with_torch = median_ms(lambda: _bare_spawn(_import_torch), repeat=args.repeat)
    boot = median_ms(lambda: _bootstrap_start(model), repeat=args.repeat)
    full = median_ms(lambda: _generator_start(model), repeat=max(1, args.repeat // 2))
    print("\n(a) worker start")
    print_table(
        ["start", "ms", "ratio"],
        [
            ["bare spawn of an empty target", f"{bare:.0f}", "1.00x"],
            ["bare spawn importing torch", f"{with_torch:.0f}", f"{with_torch / bare:.2f}x"],
            ["diffusion worker to ready (steps)", f"{boot:.0f}", f"{boot / bare:.2f}x"],
            ["DiffGenerator.from_pretrained", f"{full:.0f}", f"{full / bare:.2f}x"],
        ],
    )
    print("\n(b) custom-op call (target <= 1.1x)")
    print_table(["op", "direct call", "resolved op(x)", "ratio"], _op_call(args.repeat))
    rates = _images_per_second(model, args.size, args.images)
    print(f"\n(c) {args.size}x{args.size} images, 8 steps")
    print_table(
        ["sp_degree", "images/s", "ratio"],
        [
            ["1", f"{rates[1]:.2f}", "1.00x"],
            ["2", f"{rates[2]:.2f}", f"{rates[2] / rates[1]:.2f}x"],
        ],
    )


if __name__ == "__main__":
    main()
