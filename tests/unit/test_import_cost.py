"""Importing the cheap public modules never imports torch (or numpy).

Each check runs in a fresh interpreter (``run_python``) with a meta-path
watcher that records *who* first imported ``torch`` or ``numpy``, so a
failure shows the import chain to cut.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support.dists import run_python
from tests.support.isolation import clean_environment

HEAVY = ("torch", "numpy")

# Every module the design promises is cheap to import. Modules added later by
# other parts of the system are listed as they land.
CHEAP_MODULES = [
    "sglang",
    "sglang.sdk",
    "sglang.srt",
    "sglang.srt.platforms",
    "sglang.srt.platforms.interface",
    "sglang.srt.platforms.device_mixin",
    "sglang.srt.plugins",
    "sglang.srt.plugins.hook_registry",
    "sglang.multimodal_gen",
    "sglang.multimodal_gen.runtime",
    "sglang.multimodal_gen.runtime.platforms",
    "sglang.multimodal_gen.runtime.platforms.interface",
    "sglang.multimodal_gen.runtime.platforms.plugins",
    "sglang.multimodal_gen.envs",
    "sglang.multimodal_gen.configs",
    "sglang.multimodal_gen.runtime.server_args",
    "sglang.multimodal_gen.runtime.managers.worker_bootstrap",
    "sglang.testing",
    "sglang.cli",
    "sglang.cli.serve_backends",
    "sglang.cli.main",
    "sglang.runtime.discovery",
    "sglang.runtime.http",
    "sglang.launch_server",
    "sglang.bench_serving",
]

WATCH = (
    f"_HEAVY = {HEAVY!r}\n"
    + """
import json, sys, traceback

class _Watch:
    stacks = {}

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name in _HEAVY and name not in cls.stacks:
            cls.stacks[name] = "".join(traceback.format_stack()[:-1])
        return None

sys.meta_path.insert(0, _Watch)
"""
)

REPORT = """
print(json.dumps({
    "loaded": sorted(name for name in _HEAVY if name in sys.modules),
    "stacks": _Watch.stacks,
}))
"""


def heavy_imports(*modules: str) -> tuple[list[str], dict[str, str]]:
    """Import *modules* in a fresh interpreter; return the heavy modules loaded and why."""
    body = "".join(f"import {module}\n" for module in modules)
    result = run_python(WATCH + body + REPORT).check()
    report = json.loads(result.stdout.strip().splitlines()[-1])
    return report["loaded"], report["stacks"]


def explain(loaded: list[str], stacks: dict[str, str]) -> str:
    return "\n".join(f"{name} was imported from:\n{stacks.get(name, '?')}" for name in loaded)


def test_the_watch_reports_a_heavy_import_and_its_importer() -> None:
    loaded, stacks = heavy_imports("json", "numpy")
    assert loaded == ["numpy"]
    assert "<string>" in stacks["numpy"]


@pytest.mark.parametrize("module", CHEAP_MODULES)
def test_module_does_not_import_torch(module: str) -> None:
    loaded, stacks = heavy_imports(module)
    assert loaded == [], explain(loaded, stacks)


def test_all_cheap_modules_together_do_not_import_torch() -> None:
    loaded, stacks = heavy_imports(*CHEAP_MODULES)
    assert loaded == [], explain(loaded, stacks)


def test_sdk_imports_only_the_standard_library_and_typing_extensions() -> None:
    code = """
    import json, sys
    before = set(sys.modules)
    import sglang.sdk
    print(json.dumps(sorted(set(sys.modules) - before)))
    """
    new = json.loads(run_python(code).check().stdout)
    ours = {"sglang", "sglang._version"}
    foreign = [
        name
        for name in new
        if name.split(".")[0] not in sys.stdlib_module_names
        and name.split(".")[0] != "typing_extensions"
        and name not in ours
        and not name.startswith("sglang.sdk")
    ]
    assert foreign == [], f"sglang.sdk imported {foreign}"


def test_platform_selection_does_not_import_the_hook_engine() -> None:
    """Selection attributes hooks through the stdlib-only ``sglang.runtime.plugin_source``.

    It must not pay for :mod:`sglang.runtime.hooks` (explicit selection has
    a 30 ms budget, ``docs/benchmarks/selection.rst``).
    """
    code = """
    import json, sys
    before = set(sys.modules)
    import sglang.runtime.plugin_source
    source_new = sorted(set(sys.modules) - before)
    import sglang.runtime.selection.current, sglang.runtime.selection.engine
    print(json.dumps([source_new, sorted(m for m in sys.modules if m.startswith("sglang."))]))
    """
    source_new, ours = json.loads(run_python(code).check().stdout)
    foreign = [
        name
        for name in source_new
        if name.split(".")[0] not in sys.stdlib_module_names
        and name not in {"sglang", "sglang._version", "sglang.runtime", "sglang.runtime._lazy"}
        and name not in {"sglang.sdk", "sglang.sdk._record"}
        and name != "sglang.runtime.plugin_source"
    ]
    assert foreign == [], f"sglang.runtime.plugin_source imported {foreign}"
    assert "sglang.runtime.plugin_source" in ours
    assert not [m for m in ours if m.startswith("sglang.runtime.hooks")], ours


def console_script() -> Path:
    script = Path(sysconfig.get_path("scripts")) / "sglang"
    assert script.exists(), f"console script missing at {script}; run `pip install -e .`"
    return script


def imported_by(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run *argv* with import profiling on; return the process and the modules it imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return proc, modules


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_console_script_does_not_import_torch(flag: str) -> None:
    proc, modules = imported_by([str(clean_environment().python), str(console_script()), flag])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "sglang.cli.main" in modules
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"sglang {flag} imported {heavy}"


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_cli_module_does_not_import_torch(flag: str) -> None:
    python = str(clean_environment().python)
    proc, modules = imported_by([python, "-X", "importtime", "-m", "sglang.cli.main", flag])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "sglang.cli" in modules
    # --version answers before the parser is built
    assert ("argparse" in modules) == (flag == "--help")
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == [], f"python -m sglang.cli.main {flag} imported {heavy}"


def test_sdk_submodules_load_on_first_use() -> None:
    """``sglang.sdk`` resolves its public names lazily (PEP 562).

    Selection imports ``sglang.sdk.srt``; that must not also pay for the
    protocols, the serve API and the hook aliases.
    """
    result = run_python(
        """
        import sys
        import sglang.sdk.srt
        lazy = ("sglang.sdk.protocols", "sglang.sdk.serve", "sglang.sdk.hooks")
        print(sorted(m for m in lazy if m in sys.modules))
        import sglang.sdk
        assert sglang.sdk.ServeBackend.__module__ == "sglang.sdk.serve"
        print("sglang.sdk.serve" in sys.modules)
        """
    ).check()
    assert result.stdout.split("\n")[:2] == ["[]", "True"]


@pytest.mark.parametrize(
    "module", ["sglang.srt.platforms", "sglang.multimodal_gen.runtime.platforms"]
)
def test_star_import_does_not_select_a_platform(module: str) -> None:
    """``from <platforms> import *`` must not resolve ``current_platform``."""
    result = run_python(
        f"""
        import sys
        from {module} import *
        from sglang.runtime.gate import GateState
        from sglang.runtime.selection import current as selection
        states = [state.selection.state for state in selection._states.values()]
        print(all(state is GateState.PENDING for state in states), "torch" in sys.modules)
        """
    ).check()
    assert result.stdout.strip() == "True False"


# Standard-library modules only error paths, reports or hook application need:
# explicit selection of a plugin platform must not import them.
COLD_PATH_FREE_OF = ("inspect", "ast", "re", "dataclasses", "typing", "traceback", "contextlib")


def test_explicit_selection_stays_off_the_heavy_standard_library(tmp_path: Path) -> None:
    """The quick start's plugin, selected by name: no inspect, ast, re, dataclasses, typing."""
    from tests.support.dists import Dist, Site

    site = Site(tmp_path / "site")
    site.install(
        Dist(
            "quick-dist",
            entry_points={"sglang.srt.platforms": {"quick": "quick_plugin:activate"}},
            modules={
                "quick_plugin/__init__.py": (
                    "from sglang.srt.platforms.interface import PlatformEnum, SRTPlatform\n\n\n"
                    "class QuickPlatform(SRTPlatform):\n"
                    "    _enum = PlatformEnum.OOT\n"
                    "    device_name = 'quick'\n\n\n"
                    "def activate():\n"
                    "    return 'quick_plugin:QuickPlatform'\n"
                )
            },
        )
    )
    result = run_python(
        f"""
        import sys
        # What site processing loaded (a ``.pth`` file that imports certifi,
        # say) is the machine's, not sglang's: only new modules count.
        before = set(sys.modules)
        from sglang.srt.platforms import current_platform
        assert type(current_platform).__name__ == "QuickPlatform"
        new = set(sys.modules) - before
        print(sorted(m for m in {COLD_PATH_FREE_OF!r} if m in new))
        """,
        path=[site.root],
        env={"SGLANG_PLATFORM": "quick"},
    ).check()
    assert result.stdout.strip() == "[]"
