"""Lifecycle probes, run in fresh interpreters: ``python -m sglang.conformance._lifecycle``.

``init RUNTIME`` starts two workers through the runtime's spawn bootstrap
with the runtime's own start-up steps, after a first step that counts the
platform's ``init_backend()`` calls and notes which model modules were
already imported when it ran; each worker then asks for initialisation
again and reports. ``plugins RUNTIME`` loads and applies the general
plugins as start-up does. Both print one JSON line of facts.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

__all__ = ["count_init_backend", "main", "report_init"]

_INIT_STEPS = {
    "srt": ("sglang.srt.platforms:initialize_current_platform", "sglang.srt.plugins:load_plugins"),
    "diffusion": (
        "sglang.multimodal_gen.runtime.platforms:initialize_current_platform",
        "sglang.multimodal_gen.runtime.platforms.plugins:load_plugins",
    ),
}
_MODEL_MODULES = (
    "sglang.srt.models",
    "sglang.srt.model_executor",
    "sglang.multimodal_gen.runtime.models",
)
_state: dict[str, Any] = {"calls": 0, "models_imported": [], "error": None, "seconds": None}


def _spec(runtime: str) -> Any:
    from sglang.runtime.spec import DIFFUSION, SRT

    return {"srt": SRT, "diffusion": DIFFUSION}[runtime]


def count_init_backend(runtime: str = "srt") -> None:
    """Wrap the selected platform class's ``init_backend`` to count its calls (a start-up step)."""
    from sglang.runtime.selection import resolve_platform

    cls: Any = type(resolve_platform(_spec(runtime)))
    original = cls.init_backend

    def counted(self: object) -> None:
        _state["calls"] += 1
        _state["models_imported"] = sorted(m for m in sys.modules if m.startswith(_MODEL_MODULES))
        start = time.perf_counter()
        try:
            original(self)
        finally:
            _state["seconds"] = time.perf_counter() - start

    cls.init_backend = counted


def count_srt() -> None:
    """:func:`count_init_backend` for SRT (a step reference takes no argument)."""
    count_init_backend("srt")


def count_diffusion() -> None:
    """:func:`count_init_backend` for diffusion."""
    count_init_backend("diffusion")


def report_init(runtime: object, worker: Any) -> None:
    """The worker target: initialise again from four threads, then report the count."""
    from sglang.runtime.selection import initialize_current_platform

    spec = _spec(str(runtime))
    threads = [threading.Thread(target=initialize_current_platform, args=(spec,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    worker.ready(dict(_state))


def _init_facts(runtime: str) -> dict[str, object]:
    from sglang.runtime.bootstrap import Payload, WorkerGroup, WorkerSpec

    steps = (f"sglang.conformance._lifecycle:count_{runtime}", *_INIT_STEPS[runtime])
    specs = [
        WorkerSpec(
            name=f"conformance {runtime} worker {rank}",
            target="sglang.conformance._lifecycle:report_init",
            payload=Payload.pack(runtime),
            steps=steps,
            rank=rank,
        )
        for rank in range(2)
    ]
    try:
        with WorkerGroup(specs).start() as group:
            reports = group.wait_ready(timeout=300)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"error": None, "workers": [reports[rank] for rank in sorted(reports)]}


def _plugin_facts(runtime: str) -> dict[str, object]:
    try:
        if runtime == "srt":
            from sglang.srt.plugins import load_plugins, plugin_outcomes

            load_plugins()
        else:
            from sglang.multimodal_gen.runtime.platforms.plugins import (
                apply_plugin_hooks,
                plugin_outcomes,
            )

            apply_plugin_hooks()
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"error": None, "outcomes": [repr(outcome) for outcome in plugin_outcomes()]}


def main(argv: list[str]) -> int:
    """``init RUNTIME`` or ``plugins RUNTIME``: print the facts as one JSON line."""
    kind, runtime = argv
    facts = _init_facts(runtime) if kind == "init" else _plugin_facts(runtime)
    sys.stdout.write("\n" + json.dumps({"facts": facts}, default=repr) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
