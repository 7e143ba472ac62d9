"""Side-effect probes run in a fresh interpreter: ``python -m sglang.conformance._probe``.

The activation and serve clauses judge what a callback does to a process
(threads, imports, device state, platform selection, time), so each probe
runs the callback in a new interpreter that has done nothing else yet and
prints one JSON object of facts. The parent (:mod:`sglang.conformance._probes`)
runs it and hands the facts to the clauses.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

__all__ = ["activation_facts", "main", "process_state", "serve_facts"]

_DRIVER_LIBRARIES = (
    "libcuda.so",
    "libnvidia-ml",
    "libamdhip64",
    "libhsa-runtime",
    "libze_loader",
    "libascendcl",
    "libmusa",
)
_DEVICE_FILES = ("/dev/nvidia", "/dev/kfd", "/dev/dri", "/dev/davinci", "/dev/accel")
_TORCH_DEVICE_MODULES = ("cuda", "xpu", "npu", "musa", "mps")


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux: threading's view (threads started by threading only)
        import threading

        return threading.active_count()


def _driver_libraries() -> list[str]:
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            text = maps.read()
    except OSError:
        return []
    return sorted(lib for lib in _DRIVER_LIBRARIES if lib in text)


def _device_files() -> list[str]:
    found: set[str] = set()
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return []
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith(_DEVICE_FILES):
            found.add(target)
    return sorted(found)


def _torch_devices() -> list[str]:
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    initialised = []
    for name in _TORCH_DEVICE_MODULES:
        module = getattr(torch, name, None)
        check = getattr(module, "is_initialized", None)
        try:
            if callable(check) and check():
                initialised.append(f"torch.{name}")
        except Exception:
            continue
    return initialised


def process_state() -> dict[str, object]:
    """What the process holds now: threads, torch, device contexts, selection state."""
    from sglang.runtime.gate import GateState
    from sglang.runtime.selection.current import _states
    from sglang.runtime.spec import DIFFUSION, SRT

    touched = [
        spec.name
        for spec in (SRT, DIFFUSION)
        if _states.get(spec).selection.state is not GateState.PENDING
    ]
    return {
        "threads": _threads(),
        "torch": "torch" in sys.modules,
        "torch_devices": _torch_devices(),
        "driver_libraries": _driver_libraries(),
        "device_files": _device_files(),
        "selection": touched,
    }


def _torch_import_threads() -> int:
    """The threads a bare ``import torch`` starts, in a new interpreter.

    ACT-03 judges importing torch; ACT-02 discounts the threads that import starts.
    """
    import subprocess

    code = (
        "import os; n = len(os.listdir('/proc/self/task')); import torch; "
        "print(len(os.listdir('/proc/self/task')) - n)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    try:
        return int(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return 0


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def activation_facts(runtime: str, name: str) -> dict[str, object]:
    """Load and call *runtime*'s platform entry point *name*; report what it did."""
    from sglang.runtime.discovery import entry_point_index
    from sglang.runtime.selection.classes import build_platform
    from sglang.runtime.spec import DIFFUSION, SRT

    spec = {"srt": SRT, "diffusion": DIFFUSION}[runtime]
    (record,) = entry_point_index().named(spec.platforms_group, name)[:1]
    before = process_state()
    facts: dict[str, object] = {"before": before, "error": None, "result": None}
    start = time.perf_counter()
    try:
        callback = record.load()
        result = callback()  # type: ignore[operator]
    except BaseException as exc:
        facts["error"] = _error(exc)
        result = None
    facts["seconds"] = time.perf_counter() - start
    facts["after"] = process_state()
    facts["torch_threads"] = 0
    if facts["after"]["torch"] and not before["torch"]:  # type: ignore[index]
        facts["torch_threads"] = _torch_import_threads()
    facts["result"] = result if isinstance(result, str | None) else repr(result)
    facts["result_type"] = type(result).__name__
    facts["class_error"] = None
    if isinstance(result, str) and result.strip():
        try:
            build_platform(
                spec,
                result.strip(),
                source=f"{spec.title} platform plugin {name!r}",
                dist_name=record.dist_name,
                plugin=True,
            )
        except Exception as exc:
            facts["class_error"] = _error(exc)
    return facts


def serve_facts(name: str, model_dir: str) -> dict[str, object]:
    """Load serve backend *name*'s factory, call it, run ``--help`` and ``detect()``.

    *name* is looked up as ``sglang serve --model-type NAME`` does (in-tree
    backends first); a registration the registry rejects is a factory error.
    """
    from sglang.cli.serve._registry import read_registry
    from sglang.sdk.constants import SUPPORTED_SERVE_BACKEND_API_VERSIONS
    from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest

    facts: dict[str, object] = {"factory_error": None}
    try:
        record = read_registry(warn=False).record(name)
        backend = record.load()()  # type: ignore[operator]
    except BaseException as exc:
        facts["factory_error"] = _error(exc)
        return facts
    facts["backend_type"] = f"{type(backend).__module__}.{type(backend).__qualname__}"
    if not isinstance(backend, ServeBackend):
        return facts
    facts["api_version"] = backend.api_version
    facts["supported"] = sorted(SUPPORTED_SERVE_BACKEND_API_VERSIONS)
    facts["has_detect"] = backend.detect is not None
    if backend.detect is not None:
        facts["detect"] = _detect(backend.detect, model_dir, ServeRequest, ServeBackendDetection)
    facts["help"] = _help(backend.run, ServeRequest)
    return facts


def _guarded_network() -> list[str]:
    """Record every socket connection, bind or name lookup from now on (the attempts only)."""
    import socket

    attempts: list[str] = []
    original_connect, original_bind = socket.socket.connect, socket.socket.bind
    original_lookup = socket.getaddrinfo

    def connect(self: socket.socket, address: object) -> None:
        attempts.append(f"connect {address!r}")
        original_connect(self, address)  # type: ignore[arg-type]

    def bind(self: socket.socket, address: object) -> None:
        attempts.append(f"bind {address!r}")
        original_bind(self, address)  # type: ignore[arg-type]

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        attempts.append(f"getaddrinfo {host!r}")
        return original_lookup(host, *args, **kwargs)  # type: ignore[arg-type]

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.bind = bind  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    return attempts


def _detect(detect: Any, model_dir: str, request_cls: Any, verdicts: Any) -> dict[str, object]:
    requests = [
        request_cls(argv=("--model-path", model_dir), model_path=model_dir),
        request_cls(argv=("--model-path", "org/unknown-model"), model_path="org/unknown-model"),
        request_cls(argv=(), model_path=None),
    ]
    network = _guarded_network()
    before = process_state()
    results: list[str] = []
    error = None
    try:
        for request in requests:
            verdict = detect(request)
            results.append(verdict.name if isinstance(verdict, verdicts) else f"bad {verdict!r}")
    except BaseException as exc:
        error = _error(exc)
    time.sleep(0.05)  # let a thread the detector started show up
    return {
        "before": before,
        "after": process_state(),
        "results": results,
        "error": error,
        "network": list(network),
    }


def _help(run: object, request_cls: type) -> dict[str, object]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    before = process_state()
    code: object = None
    error = None
    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            run(request_cls(argv=("--help",), model_path=None))  # type: ignore[operator]
        code = 0
    except SystemExit as exc:
        code = exc.code if exc.code is not None else 0
    except BaseException as exc:
        error = _error(exc)
    children = _children()
    return {
        "before": before,
        "after": process_state(),
        "code": code,
        "error": error,
        "children": children,
        "output": out.getvalue()[-500:],
    }


def _children() -> list[int]:
    """The pids of this process's live children (Linux; empty elsewhere)."""
    pids: list[int] = []
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return pids
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as handle:
                pids.extend(int(pid) for pid in handle.read().split())
        except OSError:
            continue
    return sorted(pids)


def main(argv: list[str]) -> int:
    """``activation RUNTIME NAME`` or ``serve NAME MODEL_DIR``: print the facts as JSON."""
    kind, *args = argv
    facts = activation_facts(*args) if kind == "activation" else serve_facts(*args)
    sys.stdout.write("\n" + json.dumps({"facts": facts}, default=repr) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
