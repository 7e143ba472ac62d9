"""The suite's plugin-free view of the installed packages (``tests.support.isolation``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sglang.runtime import discovery
from tests.support.dists import Dist, Site, run_python
from tests.support.isolation import build_view, clean_environment, make_venv, plugin_free_env

PLUGIN = Dist(
    "vendor-plugin",
    entry_points={"sglang.srt.platforms": {"vendor": "vendor_pkg:activate"}},
    modules={"vendor_pkg/__init__.py": "def activate():\n    return None\n"},
)


def installed_site(root: Path) -> Site:
    """A site folder as pip leaves it: sglang, an unrelated package and a plugin."""
    site = Site(root)
    site.install(Dist("sglang", entry_points={"console_scripts": {"sglang": "sglang.cli:main"}}))
    site.install(Dist("other", entry_points={"pytest11": {"other": "other_pkg"}}))
    info = site.install(PLUGIN)
    (root / "vendor_pkg.pth").write_text(str(root / "vendor_src") + "\n", encoding="utf-8")
    (info / "RECORD").write_text(
        "vendor_pkg/__init__.py,,\nvendor_pkg.pth,,\n../../../bin/vendor,,\n", encoding="utf-8"
    )
    return site


def test_view_leaves_out_other_sglang_plugins_and_what_they_installed(tmp_path: Path) -> None:
    installed_site(tmp_path / "site")
    (tmp_path / "site" / "other_pkg").mkdir()
    hidden = build_view(tmp_path / "view", [tmp_path / "site"])
    assert hidden == ["vendor-plugin"]
    names = sorted(p.name for p in (tmp_path / "view").iterdir())
    assert names == ["other-1.0.dist-info", "other_pkg", "sglang-1.0.dist-info"]
    assert all((tmp_path / "view" / name).is_symlink() for name in names)


def test_path_lines_to_plugin_metadata_are_dropped_from_kept_pth_files(tmp_path: Path) -> None:
    project = Site(tmp_path / "project")  # an egg-link style development install
    project.install(PLUGIN)
    site = tmp_path / "site"
    site.mkdir()
    (site / "easy-install.pth").write_text(
        f"import os\n{tmp_path / 'project'}\n{tmp_path / 'elsewhere'}\n", encoding="utf-8"
    )
    build_view(tmp_path / "view", [site])
    pth = tmp_path / "view" / "easy-install.pth"
    assert not pth.is_symlink()
    assert pth.read_text(encoding="utf-8") == f"import os\n{tmp_path / 'elsewhere'}\n"


def test_a_venv_on_a_view_sees_the_view_and_not_the_real_site(tmp_path: Path) -> None:
    installed_site(tmp_path / "site")
    build_view(tmp_path / "view", [tmp_path / "site"])
    python = make_venv(tmp_path / "venv", tmp_path / "view")
    code = (
        "import json, sys; from importlib.metadata import distributions;"
        "print(json.dumps([sys.path, sorted(d.metadata['Name'] for d in distributions())]))"
    )
    proc = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, env=plugin_free_env(), check=True
    )
    path, names = json.loads(proc.stdout)
    assert str(tmp_path / "view") in path
    assert str(tmp_path / "site") not in path
    assert names == ["other", "sglang"]


def test_this_process_and_its_children_see_no_installed_plugin() -> None:
    """Holds whatever is installed: no other distribution's entry points in sglang groups."""
    clean = clean_environment()
    assert clean.view.is_dir()
    assert str(clean.view) in sys.path
    here = [
        r.dist_name
        for r in discovery.entry_point_index()
        if r.group.startswith("sglang.") and discovery.normalize_dist_name(r.dist_name) != "sglang"
    ]
    assert here == []
    child = run_python(
        """
        from importlib.metadata import distributions
        names = {
            d.metadata["Name"]
            for d in distributions()
            if any(ep.group.startswith("sglang.") for ep in d.entry_points)
        }
        print(sorted(names - {"sglang"}))
        """
    ).check()
    assert child.stdout.strip() == "[]"
