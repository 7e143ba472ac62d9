"""Real installed distributions for tests: ``*.dist-info`` folders on disk.

Tests never mock ``importlib.metadata``. They build a *site* folder holding
real ``NAME-VERSION.dist-info`` directories (``METADATA``,
``entry_points.txt``, ``RECORD``) next to the plugin modules, then put that
folder on ``sys.path`` or on a child interpreter's ``PYTHONPATH``. Child
interpreters are the plugin-free venv's (:mod:`tests.support.isolation`).
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sglang.sdk.constants import ENV_CHECK_KV_ACCOUNTING
from tests.support.isolation import clean_environment

__all__ = ["Dist", "PythonResult", "Site", "run_python"]

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Dist:
    """A distribution to install into a :class:`Site`.

    ``entry_points`` maps group -> {name: "module:attr"}; ``modules`` maps a
    relative file path (``"pkg/__init__.py"``) to its source, dedented.
    """

    name: str
    version: str = "1.0"
    entry_points: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    modules: Mapping[str, str] = field(default_factory=dict)


class Site:
    """A folder of installed distributions, usable as a ``sys.path`` entry."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def install(self, dist: Dist) -> Path:
        """Write *dist*'s modules and its ``.dist-info``; return the dist-info path."""
        for relpath, source in dist.modules.items():
            target = self.root / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(source), encoding="utf-8")
        folder_name = dist.name.replace("-", "_")
        info = self.root / f"{folder_name}-{dist.version}.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist.name}\nVersion: {dist.version}\n",
            encoding="utf-8",
        )
        lines: list[str] = []
        for group, items in dist.entry_points.items():
            lines.append(f"[{group}]")
            lines.extend(f"{name} = {value}" for name, value in items.items())
            lines.append("")
        (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
        (info / "RECORD").write_text("", encoding="utf-8")
        return info


@dataclass(frozen=True)
class PythonResult:
    """The outcome of :func:`run_python`."""

    returncode: int
    stdout: str
    stderr: str

    def check(self) -> PythonResult:
        """Raise ``AssertionError`` with both streams unless the child exited 0."""
        if self.returncode != 0:
            raise AssertionError(
                f"child exited {self.returncode}\n--- stdout\n{self.stdout}\n"
                f"--- stderr\n{self.stderr}"
            )
        return self


def suite_env() -> dict[str, str]:
    """This environment without its ``SGLANG_*`` variables, but with the KV accounting check.

    Every scheduler the suite starts checks its page accounting after each
    step (``SGLANG_CHECK_KV_ACCOUNTING``, set by ``tests/conftest.py``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGLANG_")}
    if ENV_CHECK_KV_ACCOUNTING in os.environ:
        env[ENV_CHECK_KV_ACCOUNTING] = os.environ[ENV_CHECK_KV_ACCOUNTING]
    return env


def run_python(
    code: str,
    *,
    path: list[Path] | tuple[Path, ...] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> PythonResult:
    """Run *code* in a fresh interpreter with *path* prepended to ``PYTHONPATH``.

    The interpreter is the plugin-free venv's: it sees this environment's
    packages except other distributions with ``sglang.*`` entry points. It
    inherits this environment minus every ``SGLANG_*`` variable but the
    suite-wide ``SGLANG_CHECK_KV_ACCOUNTING`` (:func:`suite_env`), then gets
    *env* on top, so a test states exactly the variables it needs.
    """
    child_env = suite_env()
    entries = [str(p) for p in path]
    if child_env.get("PYTHONPATH"):
        entries.append(child_env["PYTHONPATH"])
    child_env["PYTHONPATH"] = os.pathsep.join(entries)
    child_env.update(env or {})
    proc = subprocess.run(
        [str(clean_environment().python), "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=child_env,
        timeout=timeout,
        check=False,
    )
    return PythonResult(proc.returncode, proc.stdout, proc.stderr)
