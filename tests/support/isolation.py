"""This interpreter's installed packages, minus every other sglang plugin.

The suite must give the same results whatever plugins the machine has
installed (``pip install -e examples/demo_platform`` included). Tests
therefore never look at the real ``site-packages``: they see a *view* of it,
a folder of symbolic links to every installed entry except the distributions
other than ``sglang`` that declare entry points in an ``sglang.*`` group
(their metadata folder, the ``.pth`` files and top-level packages their
``RECORD`` lists, and ``.pth`` lines that point at a folder holding such
metadata).

:func:`clean_environment` builds the view once per process, together with a
real virtual environment whose site processing adds that view and nothing
else (no system or user site-packages). Child interpreters run that
venv's ``python``; the test process itself swaps its ``site-packages``
entries for the clean interpreter's (:func:`isolate_sys_path`). Discovery
keeps reading real ``*.dist-info`` folders with the real
:mod:`importlib.metadata` rules: only what it is shown changes.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import venv
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import PathDistribution
from pathlib import Path

__all__ = [
    "CleanEnvironment",
    "build_view",
    "clean_environment",
    "isolate_sys_path",
    "make_venv",
    "plugin_free_env",
    "venv_site_packages",
]

OWN_DISTRIBUTION = "sglang"
PLUGIN_GROUP_PREFIX = "sglang."
_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_VIEW_PTH = "00-sglang-clean-view.pth"


@dataclass(frozen=True)
class CleanEnvironment:
    """A venv that sees this interpreter's packages except other sglang plugins.

    Attributes:
        root: The venv folder.
        python: Its interpreter; run children with it.
        view: The filtered ``site-packages`` view its site processing adds.
        site_path: The ``sys.path`` entries that its site processing adds,
            in order (the venv's own ``site-packages``, the view, and the
            paths that the view's ``.pth`` files add).
        hidden: The names of the distributions that the view leaves out.
    """

    root: Path
    python: Path
    view: Path
    site_path: tuple[str, ...]
    hidden: tuple[str, ...]


def plugin_free_env() -> dict[str, str]:
    """``os.environ`` minus ``PYTHONPATH`` and every ``SGLANG_*`` variable."""
    return {
        k: v for k, v in os.environ.items() if not k.startswith("SGLANG_") and k != "PYTHONPATH"
    }


def _normalize(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _dist_name(info: Path) -> str:
    """The ``Name`` in *info*'s ``METADATA``, else the name part of the folder's name."""
    names = PathDistribution(info).metadata.get_all("Name") or [info.name.split("-")[0]]
    return str(names[0])


def _is_foreign_plugin(info: Path) -> bool:
    """Whether *info* is the metadata of a distribution other than sglang with sglang groups."""
    if _normalize(_dist_name(info)) == OWN_DISTRIBUTION:
        return False
    return any(
        ep.group == OWN_DISTRIBUTION or ep.group.startswith(PLUGIN_GROUP_PREFIX)
        for ep in PathDistribution(info).entry_points
    )


def _metadata_folders(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        for entry in sorted(folder.iterdir()):
            if entry.name.endswith(_METADATA_SUFFIXES) and entry.is_dir():
                yield entry


def _holds_foreign_plugin(folder: Path) -> bool:
    return any(_is_foreign_plugin(info) for info in _metadata_folders(folder))


def _top_level(info: Path) -> set[str]:
    """The top-level names in *info*'s folder that its ``RECORD`` installed."""
    names: set[str] = set()
    for file in PathDistribution(info).files or ():
        first = file.parts[0] if file.parts else ""
        if first and first not in ("..", "__pycache__"):
            names.add(first)
    return names


def _site_dirs() -> list[Path]:
    """The site-packages folders this interpreter's site processing added, in path order."""
    candidates = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    on_path = [os.path.normcase(os.path.abspath(p)) for p in sys.path]
    found = [Path(c) for c in candidates if os.path.normcase(os.path.abspath(c)) in on_path]
    return sorted(found, key=lambda p: on_path.index(os.path.normcase(os.path.abspath(p))))


def _filtered_pth(pth: Path, site_dir: Path) -> str | None:
    """*pth*'s text without lines pointing at foreign plugin metadata; ``None`` if unchanged."""
    lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
    kept = [
        line
        for line in lines
        if line.startswith(("#", "import ", "import\t"))
        or not line.strip()
        or not _holds_foreign_plugin(site_dir / line.rstrip())
    ]
    return None if kept == lines else "\n".join(kept) + "\n"


def build_view(view: Path, site_dirs: Iterable[Path]) -> list[str]:
    """Fill *view* with links to *site_dirs*' entries; return the hidden distributions."""
    hidden: list[str] = []
    seen_dists: set[str] = set()
    view.mkdir(parents=True, exist_ok=True)
    for site_dir in site_dirs:
        kept_names: set[str] = set()
        foreign_names: set[str] = set()
        skip: set[str] = set()
        for info in _metadata_folders(site_dir):
            dist_name = _normalize(_dist_name(info))
            if dist_name in seen_dists:  # shadowed by an earlier site folder
                skip.add(info.name)
                continue
            seen_dists.add(dist_name)
            if _is_foreign_plugin(info):
                hidden.append(_dist_name(info))
                skip.add(info.name)
                foreign_names |= _top_level(info)
            else:
                kept_names |= _top_level(info)
        skip |= foreign_names - kept_names
        for entry in sorted(site_dir.iterdir()):
            link = view / entry.name
            if entry.name in skip or link.exists() or link.is_symlink():
                continue
            text = _filtered_pth(entry, site_dir) if entry.suffix == ".pth" else None
            if text is not None:
                link.write_text(text, encoding="utf-8")
            else:
                link.symlink_to(entry, target_is_directory=entry.is_dir())
    return hidden


def _venv_python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def venv_site_packages(root: Path) -> Path:
    """The ``site-packages`` folder of the venv at *root*."""
    found = [*root.glob("lib/python*/site-packages"), *root.glob("Lib/site-packages")]
    if len(found) != 1:
        raise RuntimeError(f"cannot tell the site-packages folder of the venv at {root}: {found}")
    return found[0]


def make_venv(root: Path, view: Path) -> Path:
    """Create a real venv at *root* whose site processing adds *view*; return its python.

    The venv has its own, empty ``site-packages`` (where ``pip install``
    puts packages, ahead of the view) and neither system nor user
    site-packages: a ``.pth`` file adds *view* with :func:`site.addsitedir`,
    so the ``.pth`` files inside the view are processed as in a real
    ``site-packages``.
    """
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt", clear=True).create(root)
    (venv_site_packages(root) / _VIEW_PTH).write_text(
        f"import site; site.addsitedir({str(view)!r})\n", encoding="utf-8"
    )
    return _venv_python(root)


def _site_path(python: Path | str) -> list[str]:
    """The ``sys.path`` entries that *python*'s site processing adds, in order."""

    def path_of(*flags: str) -> list[str]:
        proc = subprocess.run(
            [str(python), *flags, "-c", "import json, sys; print(json.dumps(sys.path))"],
            capture_output=True,
            text=True,
            env=plugin_free_env(),
            timeout=120,
            check=True,
        )
        entries: list[str] = json.loads(proc.stdout)
        return entries

    without_site = set(path_of("-S"))
    return [entry for entry in path_of() if entry not in without_site]


@functools.cache
def clean_environment() -> CleanEnvironment:
    """Build (once per process) the plugin-free view and its venv in a temp folder."""
    root = Path(tempfile.mkdtemp(prefix="sglang-clean-env-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    view = root / "site-packages"
    hidden = build_view(view, _site_dirs())
    python = make_venv(root / "venv", view)
    return CleanEnvironment(
        root=root / "venv",
        python=python,
        view=view,
        site_path=tuple(_site_path(python)),
        hidden=tuple(hidden),
    )


def isolate_sys_path(clean: CleanEnvironment) -> None:
    """Replace this process's site-added ``sys.path`` entries with *clean*'s.

    Entries that did not come from site processing (the test roots,
    ``PYTHONPATH``, the standard library) keep their places; *clean*'s site
    entries take the place of the first real one.
    """
    real = set(_site_path(sys.executable))
    new: list[str] = []
    inserted = False
    for entry in sys.path:
        if entry in real:
            if not inserted:
                new.extend(clean.site_path)
                inserted = True
            continue
        new.append(entry)
    if not inserted:
        new.extend(clean.site_path)
    sys.path[:] = new
