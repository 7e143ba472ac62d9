"""The parent's side of the probes: run :mod:`sglang.conformance._probe`, read its facts.

Each probe runs once per process (pytest-xdist workers run their own) in
an interpreter started with this one's executable and environment.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence

__all__ = ["ProbeError", "activation", "run_python", "serve"]

_TIMEOUT = 300.0


class ProbeError(RuntimeError):
    """A probe interpreter failed before it could report; the message holds its output."""


def run_python(
    args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = _TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with *args* (the environment: this one's, updated by *env*)."""
    child_env = dict(os.environ)
    child_env.update(env or {})
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=child_env,
        timeout=timeout,
        check=False,
    )


def torch_import_seconds(importtime: str) -> float:
    """The seconds ``import torch`` took, from ``python -X importtime`` output (0 if absent)."""
    for line in importtime.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) == 3 and fields[2].strip() == "torch":
            try:
                return int(fields[1]) / 1e6
            except ValueError:
                return 0.0
    return 0.0


def _facts(args: Sequence[str]) -> dict[str, object]:
    proc = run_python(["-X", "importtime", "-m", "sglang.conformance._probe", *args])
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith('{"facts"'):
            facts: dict[str, object] = json.loads(line)["facts"]
            facts["torch_seconds"] = torch_import_seconds(proc.stderr)
            return facts
    raise ProbeError(
        f"the probe `{' '.join(args)}` exited {proc.returncode} without reporting:\n"
        f"{proc.stdout[-2000:]}\n{_without_importtime(proc.stderr)[-4000:]}"
    )


def _without_importtime(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))


@functools.cache
def activation(runtime: str, entry_point: str) -> dict[str, object]:
    """The facts of calling *runtime*'s platform callback *entry_point* in a fresh process."""
    return _facts(["activation", runtime, entry_point])


@functools.cache
def serve(backend: str) -> dict[str, object]:
    """The facts of serve backend *backend*: factory, ``--help`` and ``detect()``."""
    with tempfile.TemporaryDirectory(prefix="sglang-conformance-model-") as model_dir:
        with open(os.path.join(model_dir, "config.json"), "w", encoding="utf-8") as handle:
            handle.write('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}\n')
        return _facts(["serve", backend, model_dir])
