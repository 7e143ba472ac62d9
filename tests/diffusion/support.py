"""Helpers of the diffusion tests: the tiny model, offline scripts, the recording platform."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

from sglang.sdk.constants import DIFFUSION_PLATFORMS_GROUP, DIFFUSION_PLUGINS_GROUP
from sglang.sdk.contract import OperationStatus
from sglang.sdk.diffusion import DIFFUSION_OPERATIONS
from tests.support.dists import Dist, PythonResult, Site, run_python
from tests.support.isolation import clean_environment

__all__ = [
    "ACTIVE_METHODS",
    "make_tiny_model",
    "recording_site",
    "result_json",
    "run_script",
]

ACTIVE_METHODS = sorted(
    name for name, op in DIFFUSION_OPERATIONS.items() if op.status is OperationStatus.ACTIVE
)
"""Every Active interface of the diffusion contract (``dispatch_key`` included)."""


def make_tiny_model(directory: Path) -> Path:
    """Write the tiny model with the real command line (in its own interpreter)."""
    subprocess.run(
        [
            str(clean_environment().python),
            "-m",
            "sglang.testing.make_diffusion_model",
            str(directory),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return directory


def run_script(
    folder: Path,
    code: str,
    *,
    path: list[Path] | tuple[Path, ...] = (),
    env: dict[str, str] | None = None,
    timeout: float = 240,
) -> PythonResult:
    """Run *code* as an offline script FILE (spawn re-runs its module scope in each child)."""
    script = folder / "offline_script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    runner = f"import runpy; runpy.run_path({str(script)!r}, run_name='__main__')"
    return run_python(runner, path=path, env=env, timeout=timeout)


def result_json(result: PythonResult) -> dict[str, object]:
    """The JSON object the script printed after ``RESULT``."""
    line = next(x for x in result.check().stdout.splitlines() if x.startswith("RESULT "))
    data: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return data


RECORDING_PLATFORM = """
import os
from sglang.runtime.builtin.diffusion import CpuPlatform
from sglang.multimodal_gen.runtime.platforms import PlatformEnum

ACTIVE = {active!r}


def record(text):
    with open(os.environ["REC_EVENTS"], "a", encoding="utf-8") as handle:
        handle.write(f"{{os.getpid()}} {{text}}\\n")


def _recorded(name, method):
    def wrapper(self, *args, **kwargs):
        record("call " + name)
        return method(self, *args, **kwargs)
    wrapper.__name__ = name
    return wrapper


class RecordingPlatform(CpuPlatform):
    _enum = PlatformEnum.OOT
    device_name = "recording"
    device_type = "cpu"

    @property
    def dispatch_key(self):
        record("call dispatch_key")
        return "CPU"

    def init_backend(self):
        record("lifecycle init_backend")
        if os.environ.get("REC_FAIL_INIT"):
            raise RuntimeError("recording firmware missing")

    def get_compile_backend(self):
        return "eager"


for _name in ACTIVE:
    if _name != "dispatch_key":
        setattr(RecordingPlatform, _name, _recorded(_name, getattr(RecordingPlatform, _name)))


def activate():
    return "rec_platform:RecordingPlatform"


def register_hooks():
    from sglang.multimodal_gen.runtime.platforms.plugins import HookType, plugin_hook

    record("lifecycle load_plugins")

    @plugin_hook("rec_hook_target:marker", type=HookType.BEFORE)
    def _marker(*args, **kwargs):
        pass

    @plugin_hook(
        "sglang.multimodal_gen.runtime.managers.gpu_worker:run_scheduler_process",
        type=HookType.BEFORE,
    )
    def _run(server_args, worker):
        record("lifecycle run_scheduler_process " + type(server_args).__name__)

    @plugin_hook(
        "sglang.multimodal_gen.runtime.managers.gpu_worker:GPUWorker.init_device_and_model",
        type=HookType.BEFORE,
    )
    def _init(self):
        record(f"lifecycle init_device_and_model rank {{self.rank}}")
"""

HOOK_TARGET = """
import sys

from rec_platform import record

record("lifecycle apply_plugin_hooks")
record(f"server module imported: {'sglang.multimodal_gen.runtime.launch_server' in sys.modules}")


def marker():
    pass
"""


def recording_site(root: Path) -> Site:
    """A site with ``rec-platform``: a diffusion platform recording every Active call.

    Its general plugin (same distribution) records ``load_plugins``, the
    import of its hook target (``apply_plugin_hooks``), the patched
    ``run_scheduler_process`` and ``GPUWorker.init_device_and_model``.
    Events go to the file ``REC_EVENTS`` names, one ``PID TEXT`` line each.
    """
    site = Site(root)
    site.install(
        Dist(
            "rec-platform",
            entry_points={
                DIFFUSION_PLATFORMS_GROUP: {"recording": "rec_platform:activate"},
                DIFFUSION_PLUGINS_GROUP: {"recording": "rec_platform:register_hooks"},
            },
            modules={
                "rec_platform.py": RECORDING_PLATFORM.format(active=ACTIVE_METHODS),
                "rec_hook_target.py": HOOK_TARGET,
            },
        )
    )
    return site
