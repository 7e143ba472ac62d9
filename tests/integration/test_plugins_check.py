"""``sglang plugins check`` against real dist-info plugins: each finding, exit codes, JSON.

One site (module scope) holds a plugin per finding: a clean SRT platform,
one with signature drift, a misspelt method, a Planned override and no
memory method, one that declares an unknown version, one whose callback
steps aside (its class is found in the distribution), general plugins with
documented, undocumented and stale hook targets, and a broken serve backend.
Each check runs the console entry point in a fresh interpreter.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sglang.sdk.constants import SERVE_BACKENDS_GROUP, SRT_PLATFORMS_GROUP, SRT_PLUGINS_GROUP
from tests.support.dists import Dist, PythonResult, Site, run_python

CLI = """
import sys
from sglang.cli.main import main
code = main({argv!r})
print("TORCH", "torch" in sys.modules)
raise SystemExit(code)
"""

HEADER = """
from __future__ import annotations

from typing import ClassVar, Literal

from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform
"""

SERVING = """
    def get_device(self, local_rank: int) -> torch.device:
        raise RuntimeError("not on this machine")

    def set_device(self, device: torch.device) -> None:
        pass

    def get_torch_distributed_backend_str(self) -> str:
        return "gloo"

    def get_default_attention_backend(self) -> str:
        return "torch_native"

    def get_mha_kv_pool_cls(self) -> type[MHAKVPool]:
        raise RuntimeError("not on this machine")

    def get_paged_allocator_cls(self) -> type[PagedAllocator]:
        raise RuntimeError("not on this machine")
"""

MEMORY = """
    def get_available_memory(self, device_id: int = 0) -> tuple[int, int]:
        return (1, 2)
"""


def platform_dist(name: str, body: str, *, returns: str = "default", extra: str = "") -> Dist:
    package = name.replace("-", "_")
    qualname = repr(f"{package}.platform:Plat") if returns == "default" else returns
    return Dist(
        name,
        entry_points={SRT_PLATFORMS_GROUP: {package: f"{package}:activate"}},
        modules={
            f"{package}/__init__.py": f"def activate():\n    return {qualname}\n",
            f"{package}/platform.py": HEADER
            + extra
            + "\n\nclass Plat(SRTPlatform):\n    _enum = PlatformEnum.OOT\n"
            + body,
        },
    )


CLEAN = platform_dist(
    "clean-plat", "    api_version: ClassVar[Literal[1]] = 1\n" + SERVING + MEMORY
)

DRIFTED = platform_dist(
    "drift-plat",
    SERVING
    + """
    def get_device_total_memory(self, device_id: int = 1) -> int:
        return 0

    def get_current_memory_usage(self, device: str | None = None) -> int:
        return 0

    def get_device_nmae(self, device_id: int = 0) -> str:
        return "typo"

    def get_device_uuid(self, device_id: int = 0) -> str:
        return "uuid"
""",
)

FUTURE = platform_dist(
    "future-plat",
    "    api_version = 2\n"
    + SERVING
    + MEMORY
    + """
    def get_device_name(self) -> str:
        return "dropped device_id"
""",
)

SLEEPY = Dist(
    "sleepy-plat",
    entry_points={SRT_PLATFORMS_GROUP: {"sleepy": "sleepy_plat:activate"}},
    modules={
        "sleepy_plat/__init__.py": "def activate():\n    return None\n",
        "sleepy_plat/base.py": HEADER
        + "\n\nclass VendorBase(SRTPlatform):\n    _enum = PlatformEnum.OOT\n"
        + SERVING
        + MEMORY,
        "sleepy_plat/device.py": (
            "from sleepy_plat.base import VendorBase\n\n\n"
            "class SleepyPlatform(VendorBase):\n    api_version = 1\n"
        ),
        "sleepy_plat/heavy.py": "raise RuntimeError('never imported: it defines no platform')\n",
    },
)

HOOKS = Dist(
    "hooks-dist",
    entry_points={SRT_PLUGINS_GROUP: {"hooks": "hooks_dist:register"}},
    modules={
        "hooks_dist/__init__.py": """
            from sglang.srt.plugins.hook_registry import HookRegistry, HookType

            def around(original, *args, **kwargs):
                return original(*args, **kwargs)

            S = "sglang.srt.managers.scheduler.Scheduler"
            AROUND = HookType.AROUND

            def register():
                HookRegistry.register(f"{S}.run_batch", around, AROUND, api_version=1)
                HookRegistry.register(f"{S}.get_next_batch_to_run", around, AROUND)
                HookRegistry.register(f"{S}:process_batch_result", around, AROUND, api_version=2)
                HookRegistry.register(f"{S}.run_batchh", around, AROUND)
        """
    },
)

BACKEND = Dist(
    "bad-backend",
    entry_points={SERVE_BACKENDS_GROUP: {"bad": "bad_backend:create"}},
    modules={"bad_backend/__init__.py": "def create():\n    return {'api_version': 1}\n"},
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = Site(tmp_path_factory.mktemp("check") / "site")
    for dist in (CLEAN, DRIFTED, FUTURE, SLEEPY, HOOKS, BACKEND):
        site.install(dist)
    return site.root


def check(site: Path, *args: str) -> PythonResult:
    return run_python(CLI.format(argv=["plugins", "check", *args]), path=[site])


def report(site: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = check(site, "--json", *args)
    assert "TORCH False" in result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout.splitlines()[0])


def findings(data: dict[str, Any], name: str) -> dict[str, list[dict[str, str]]]:
    """The findings of the check named *name*, by code."""
    [plugin] = [p for p in data["plugins"] if p["name"] == name]
    by_code: dict[str, list[dict[str, str]]] = {}
    for finding in plugin["findings"]:
        by_code.setdefault(finding["code"], []).append(finding)
    return by_code


def test_a_clean_platform_passes_even_strict(site: Path) -> None:
    code, data = report(site, "clean-plat", "--strict")
    assert code == 0
    assert data["summary"] == {"checked": 1, "errors": 0, "warnings": 0, "notes": 0}
    [plugin] = data["plugins"]
    assert plugin["kind"] == "srt-platform"
    assert plugin["classes"] == [
        {"class": "clean_plat.platform.Plat", "found_by": "callback", "api_version": 1}
    ]
    assert data["exit_code"] == 0
    assert data["strict"] is True


def test_drift_typos_planned_overrides_and_missing_memory_are_found(site: Path) -> None:
    code, data = report(site, "drift-plat")
    found = findings(data, "drift_plat")
    assert code == 0  # warnings and notes only
    assert {"api-version-undeclared", "signature-drift", "near-miss-name"} <= set(found)
    assert {"planned-override", "missing-for-serve"} <= set(found)
    drift = [f["message"] for f in found["signature-drift"]]
    assert "parameter 'device_id' defaults to 1, not 0" in drift
    assert "parameter 'device' is annotated 'str | None', not 'torch.device | None'" in drift
    assert any(m.startswith("returns 'int', not 'float'") for m in drift)
    [typo] = found["near-miss-name"]
    assert typo["subject"] == "drift_plat.platform.Plat.get_device_nmae"
    assert "if it is meant to override get_device_name, rename it" in typo["message"]
    [planned] = found["planned-override"]
    assert planned["severity"] == "note"
    assert planned["subject"] == "drift_plat.platform.Plat.get_device_uuid"
    [memory] = found["missing-for-serve"]
    assert memory["severity"] == "warning"
    assert "get_available_memory() unless --max-total-tokens is given" in memory["message"]
    strict_code, _ = report(site, "drift-plat", "--strict")
    assert strict_code == 1


def test_an_unknown_version_and_a_dropped_parameter_are_errors(site: Path) -> None:
    code, data = report(site, "future-plat")
    found = findings(data, "future_plat")
    assert code == 1
    [version] = found["api-version-unsupported"]
    assert "declares api_version=2, which this sglang does not support" in version["message"]
    assert "supported 1" in version["message"]
    [dropped] = found["signature-incompatible"]
    assert dropped["subject"] == "future_plat.platform.Plat.get_device_name"
    assert "drops parameter 'device_id'" in dropped["message"]


def test_a_callback_returning_none_is_checked_through_its_distribution(site: Path) -> None:
    code, data = report(site, "sleepy")
    assert code == 0
    [plugin] = data["plugins"]
    assert [c["class"] for c in plugin["classes"]] == ["sleepy_plat.device.SleepyPlatform"]
    assert plugin["classes"][0]["found_by"] == "distribution"
    assert "plugin-failed" not in findings(data, "sleepy")  # heavy.py was never imported


def test_hooks_are_listed_with_their_targets_and_versions(site: Path) -> None:
    code, data = report(site, "hooks-dist")
    [plugin] = data["plugins"]
    assert code == 1
    hooks = {h["target"]: h for h in plugin["hooks"]}
    scheduler = "sglang.srt.managers.scheduler.Scheduler"
    assert hooks[f"{scheduler}.run_batch"]["documented"] is True
    assert hooks[f"{scheduler}.run_batch"]["api_version"] == 1
    assert hooks[f"{scheduler}.run_batch"]["target_version"] == 1
    assert hooks[f"{scheduler}.run_batchh"]["documented"] is False
    found = findings(data, "hooks")
    [stale] = found["hook-version-unsupported"]
    assert stale["subject"].endswith(f"on {scheduler}:process_batch_result")
    assert "declares api_version=2" in stale["message"]
    assert "(self, batch: ScheduleBatch, result: GenerationBatchResult) -> None" in stale["message"]
    [undocumented] = found["hook-undocumented-target"]
    assert f"did you mean {scheduler}.run_batch?" in undocumented["message"]
    [unstated] = found["hook-version-unstated"]
    assert f"{scheduler}.get_next_batch_to_run" in unstated["message"]


def test_a_serve_backend_gets_the_registry_checks(site: Path) -> None:
    code, data = report(site, "bad")
    assert code == 1
    [unusable] = findings(data, "bad")["serve-backend-unusable"]
    assert "the factory returned builtins.dict, not a ServeBackend" in unusable["message"]


def test_a_class_named_on_the_command_line_is_checked_alone(site: Path) -> None:
    code, data = report(site, "--class", "clean_plat.platform:Plat")
    assert code == 0
    [plugin] = data["plugins"]
    assert plugin["kind"] == "srt-platform"
    assert plugin["classes"][0]["found_by"] == "option"


def test_an_unknown_name_is_an_error(site: Path) -> None:
    code, data = report(site, "no-such-plugin")
    assert code == 1
    [unknown] = findings(data, "no-such-plugin")["unknown-plugin"]
    assert "installed entry points: bad, clean_plat" in unknown["message"]


def test_everything_at_once_and_as_text(site: Path) -> None:
    result = check(site)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "SRT platform plugin 'clean_plat' (clean-plat 1.0) = clean_plat:activate" in lines
    assert "  class clean_plat.platform.Plat (by callback; api_version 1)" in lines
    assert any(
        line.startswith("  warning: [near-miss-name] drift_plat.platform.Plat.get_device_nmae: ")
        for line in lines
    )
    assert lines[-2].startswith("6 checked: ")
    assert "TORCH False" in lines
