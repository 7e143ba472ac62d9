"""Install ``examples/`` packages into a temporary venv the way a reader would.

The venv sees this environment's packages through the plugin-free view
(:mod:`tests.support.isolation`: sglang, torch, pip and the build backends
from the ``dev`` extra, but no other installed sglang plugin) and gets each
example built from its own ``pyproject.toml`` by pip, into its own
``site-packages``, with no network (``--no-build-isolation --no-index``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from collections.abc import Mapping
from pathlib import Path

from tests.support.dists import REPO_ROOT, Dist, PythonResult
from tests.support.isolation import clean_environment, make_venv, plugin_free_env

__all__ = [
    "EXAMPLES",
    "console_script",
    "example_dist",
    "install_examples",
    "project_dist",
    "run_in",
]

EXAMPLES = REPO_ROOT / "examples"


def install_examples(root: Path, *names: str) -> Path:
    """Make a venv under *root* with the examples *names* pip-installed; return its python."""
    python = make_venv(root / "venv", clean_environment().view)
    sources = []
    for name in names:
        # build from a copy: building must not write into the repository
        source = root / "src" / name
        shutil.copytree(
            EXAMPLES / name, source, ignore=shutil.ignore_patterns("build", "*.egg-info")
        )
        sources.append(str(source))
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "--disable-pip-version-check"]
    install = subprocess.run(
        [str(python), "-m", "pip", "install", *offline, "--quiet", *sources],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return python


def run_in(
    python: Path, code: str, env: Mapping[str, str] | None = None, timeout: float = 120
) -> PythonResult:
    """Run *code* with *python*, in the plugin-free environment plus *env*."""
    child_env = plugin_free_env()
    child_env.update(env or {})
    proc = subprocess.run(
        [str(python), "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=child_env,
        timeout=timeout,
        check=False,
    )
    return PythonResult(proc.returncode, proc.stdout, proc.stderr)


def console_script(
    bin_dir: Path, python: Path, name: str = "sglang", target: str = "sglang.cli.main:main"
) -> Path:
    """Write console script *name* into *bin_dir*: *target* (``module:function``) run by *python*.

    The plugin-free venv sees sglang (and pytest) through its view, which
    holds no console scripts; this one calls the same function as the
    installed one.
    """
    module, _, function = target.partition(":")
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / name
    script.write_text(
        f"#!{python}\nimport sys\nfrom {module} import {function}\n"
        f"if __name__ == '__main__':\n    sys.exit({function}())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def example_dist(name: str) -> Dist:
    """The :class:`Dist` (name, version, entry points) of ``examples/NAME/pyproject.toml``.

    Tests that install an example as a ``*.dist-info`` folder (its code on
    ``PYTHONPATH``) take its entry points from here, so they follow the file.
    """
    return project_dist(EXAMPLES / name)


def project_dist(folder: Path) -> Dist:
    """The :class:`Dist` (name, version, entry points) of ``FOLDER/pyproject.toml``."""
    section = ""
    project: dict[str, str] = {}
    entry_points: dict[str, dict[str, str]] = {}
    for line in (folder / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        header = re.fullmatch(r"\[(.+)\]", line.strip())
        pair = re.fullmatch(r'(\w[\w.-]*)\s*=\s*"([^"]*)"', line.strip())
        if header:
            section = header.group(1)
        elif pair and section == "project":
            project[pair.group(1)] = pair.group(2)
        elif pair and section.startswith('project.entry-points."'):
            entry_points.setdefault(section.split('"')[1], {})[pair.group(1)] = pair.group(2)
    return Dist(project["name"], project["version"], entry_points=entry_points)
