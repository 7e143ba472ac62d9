"""Serve backends as real distributions, and ``sglang serve`` in fresh interpreters."""

from __future__ import annotations

import textwrap
from pathlib import Path

from sglang.sdk.constants import SERVE_BACKENDS_GROUP
from tests.support.dists import REPO_ROOT, Dist, PythonResult, Site, run_python

EXAMPLE = REPO_ROOT / "examples" / "serve_backend"

BACKEND = """\
import json
from sglang.cli.serve_backends import ServeBackend, ServeBackendDetection, ServeRequest

def run(request: ServeRequest) -> None:
    print("RAN", {name!r}, json.dumps([list(request.argv), request.model_path]))

def detect(request: ServeRequest) -> ServeBackendDetection:
{detect}

def create() -> ServeBackend:
    return ServeBackend(api_version=1, run=run, detect={detector}, requires_model_path={rmp})
"""

CLI = """
import sys
sys.addaudithook(lambda event, args: event in {spawns!r} and _spawned.append(event))
_spawned = []
from sglang.cli.main import main
code = main({argv!r})
print("TORCH", "torch" in sys.modules)
print("SPAWNED", _spawned)
print("IMPORTED", sorted({{m.split(".")[0] for m in sys.modules if m.startswith("sb_")}}))
raise SystemExit(code)
"""

SPAWN_EVENTS = ("subprocess.Popen", "os.fork", "os.posix_spawn", "os.spawn", "os.exec", "os.system")

VERDICT = {
    "match": "    return ServeBackendDetection.MATCH",
    "no_match": "    return ServeBackendDetection.NO_MATCH",
    "unknown": "    return ServeBackendDetection.UNKNOWN",
    "raise": "    raise RuntimeError('detector exploded')",
    "none": "    return ServeBackendDetection.MATCH",
}


def backend(
    dist: str,
    name: str,
    verdict: str = "no_match",
    *,
    requires_model_path: bool = True,
    version: str = "1.0",
    source: str | None = None,
) -> Dist:
    """A distribution ``dist`` registering backend ``name`` (module ``sb_<name>_<dist>``).

    *verdict* is what the detector answers (``"none"``: no detector at all);
    *source* replaces the whole module.
    """
    module = f"sb_{name}_{dist}".replace("-", "_")
    text = source or BACKEND.format(
        name=name,
        detect=VERDICT[verdict],
        detector="None" if verdict == "none" else "detect",
        rmp=requires_model_path,
    )
    return Dist(
        dist,
        version,
        entry_points={SERVE_BACKENDS_GROUP: {name: f"{module}:create"}},
        modules={f"{module}.py": textwrap.dedent(text)},
    )


def make_site(tmp_path: Path, *dists: Dist) -> Site:
    site = Site(tmp_path / "site")
    for dist in dists:
        site.install(dist)
    return site


def sglang(site: Site | None, *argv: str, extra: tuple[Path, ...] = ()) -> PythonResult:
    """``sglang ARGV`` in a fresh interpreter that sees *site* (and *extra* paths)."""
    path = [*([site.root] if site else []), *extra]
    return run_python(CLI.format(argv=list(argv), spawns=SPAWN_EVENTS), path=path)


SELECT = """
from sglang.cli.serve import read_registry, select_backend
from sglang.sdk.serve import ServeRequest
loaded = select_backend(read_registry(), {model_type!r}, ServeRequest(argv=(), model_path={path!r}))
print("SELECTED", loaded.name, loaded.record.dist_name)
"""


def selected(site: Site | None, model_path: str | None, model_type: str = "auto") -> str:
    """``"name dist"`` of the backend the real registry selects (nothing is run)."""
    code = SELECT.format(model_type=model_type, path=model_path)
    result = run_python(code, path=[site.root] if site else []).check()
    line = next(line for line in result.stdout.splitlines() if line.startswith("SELECTED"))
    return line.removeprefix("SELECTED ")


def ran(result: PythonResult) -> list[str]:
    """The names of the backends whose ``run`` printed in *result*."""
    return [line.split()[1].strip("'") for line in result.stdout.splitlines() if line[:4] == "RAN "]


EXAMPLE_ENTRY_POINTS = {
    SERVE_BACKENDS_GROUP: {
        "my_runtime": "my_sglang_runtime.sglang_backend:create_backend",
        "my_runtime_config": "my_sglang_runtime.sglang_backend:create_config_backend",
    }
}


def example_site(tmp_path: Path) -> Site:
    """The example's metadata in a site folder; its modules come from ``EXAMPLE``."""
    site = Site(tmp_path / "example-site")
    site.install(Dist("my-sglang-runtime", "0.1.0", entry_points=EXAMPLE_ENTRY_POINTS))
    return site
