"""``sglang plugins`` and ``sglang plugins explain`` with real dist-info plugins."""

from __future__ import annotations

import json
from pathlib import Path

from sglang.sdk.constants import (
    DIFFUSION_PLUGINS_GROUP,
    SERVE_BACKENDS_GROUP,
    SRT_PLATFORMS_GROUP,
    SRT_PLUGINS_GROUP,
)
from tests.integration.test_selection_support import plugin
from tests.support.dists import Dist, Site, run_python

CLI = """
import sys
from sglang.cli.main import main
code = main({argv!r})
print("TORCH", "torch" in sys.modules)
print("IMPORTED", sorted(m for m in sys.modules if m.startswith(("plat_dist", "gen_dist"))))
raise SystemExit(code)
"""


def _site(tmp_path: Path) -> Site:
    site = Site(tmp_path / "site")
    site.install(plugin("plat-dist", "plat"))
    site.install(
        Dist(
            "gen-dist",
            "2.0",
            entry_points={
                SRT_PLUGINS_GROUP: {"gen": "gen_dist:register"},
                DIFFUSION_PLUGINS_GROUP: {"gen_diff": "gen_dist:register_diffusion"},
                SERVE_BACKENDS_GROUP: {"my_runtime": "gen_dist:backend"},
            },
            modules={
                "gen_dist/__init__.py": (
                    "def register():\n    pass\n\ndef register_diffusion():\n    pass\n"
                )
            },
        )
    )
    return site


def test_the_listing_names_every_entry_point_and_imports_nothing(tmp_path: Path) -> None:
    result = run_python(CLI.format(argv=["plugins", "--json"]), path=[_site(tmp_path).root])
    result.check()
    rows = json.loads(result.stdout.splitlines()[0])
    assert {
        "group": SRT_PLATFORMS_GROUP,
        "name": "plat",
        "value": "plat_dist:activate",
        "distribution": "plat-dist",
        "version": "1.0",
    } in rows
    assert {(r["group"], r["name"], r["distribution"], r["version"]) for r in rows} >= {
        (SRT_PLUGINS_GROUP, "gen", "gen-dist", "2.0"),
        (DIFFUSION_PLUGINS_GROUP, "gen_diff", "gen-dist", "2.0"),
        (SERVE_BACKENDS_GROUP, "my_runtime", "gen-dist", "2.0"),
    }
    assert "TORCH False" in result.stdout
    assert "IMPORTED []" in result.stdout


def test_the_text_listing_groups_by_entry_point_group(tmp_path: Path) -> None:
    result = run_python(CLI.format(argv=["plugins"]), path=[_site(tmp_path).root]).check()
    lines = result.stdout.splitlines()
    assert f"{SRT_PLATFORMS_GROUP}:" in lines
    assert "  plat = plat_dist:activate  (plat-dist 1.0)" in lines


def test_explain_shows_the_selection_and_the_general_plugin_decisions(tmp_path: Path) -> None:
    result = run_python(
        CLI.format(argv=["plugins", "explain", "--json"]),
        path=[_site(tmp_path).root],
        env={"SGLANG_PLUGINS": "plat,gen_diff"},
    ).check()
    # the test plugin prints IMPORTED/CALLED lines when selection loads it
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("{")]
    data = json.loads(line)
    srt = data["srt"]
    assert srt["selection"]["platform_class"] == "plat_dist.platform.Plat"
    assert srt["selection"]["platform_dist"] == "plat-dist"
    assert srt["selection"]["callbacks"][0]["status"] == "activated"
    assert srt["plugins"] == [
        {
            "name": "gen",
            "distribution": "gen-dist",
            "version": "2.0",
            "value": "gen_dist:register",
            "decision": "skip",
            "reason": "not in SGLANG_PLUGINS",
        }
    ]
    assert [p["decision"] for p in data["diffusion"]["plugins"]] == ["load"]
    assert "srt platform selection: auto" in srt["text"]


def test_explain_exits_non_zero_when_selection_fails(tmp_path: Path) -> None:
    result = run_python(
        CLI.format(argv=["plugins", "explain"]),
        path=[_site(tmp_path).root],
        env={"SGLANG_PLATFORM": "missing"},
    )
    assert result.returncode == 1
    assert "FAILED: PlatformSelectionError: SGLANG_PLATFORM='missing' names no" in (result.stdout)
