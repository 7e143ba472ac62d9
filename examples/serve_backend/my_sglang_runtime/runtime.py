"""The stand-in runtime: read the configuration, start workers, serve.

A real runtime would load weights and open its API endpoints here. This one
prints what it was given (one ``my_runtime: {...}`` JSON line), starts
``--workers`` processes, each with a helper process of its own, and blocks.
It leaves its processes running when it returns: ``sglang serve`` owns
child cleanup.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from my_sglang_runtime import CONFIG_FILE
from sglang.cli.serve_backends import ServeRequest

__all__ = ["launch_runtime", "read_config"]


def read_config(args: argparse.Namespace) -> dict[str, object]:
    """The ``--config`` file, else the model directory's ``my_runtime.json``, else ``{}``."""
    path = args.config or (os.path.join(args.model_path, CONFIG_FILE) if args.model_path else "")
    if not path or not os.path.isfile(path):
        return {}
    data: dict[str, object] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def launch_runtime(args: argparse.Namespace, remaining: list[str], request: ServeRequest) -> None:
    """Serve until stopped (or for ``--serve-seconds``)."""
    report = {
        "entry": f"{__name__}.launch_runtime",
        "pid": os.getpid(),
        "argv": list(request.argv),
        "model_path": request.model_path,
        "config": read_config(args),
        "remaining": remaining,
    }
    print(f"my_runtime: {json.dumps(report)}", flush=True)
    workers = [
        subprocess.Popen([sys.executable, "-m", "my_sglang_runtime.worker"])
        for _ in range(args.workers)
    ]
    if args.ready_file:
        Path(args.ready_file).write_text(json.dumps([w.pid for w in workers]), encoding="utf-8")
    deadline = None if args.serve_seconds is None else time.monotonic() + args.serve_seconds
    while deadline is None or time.monotonic() < deadline:
        time.sleep(0.05)
