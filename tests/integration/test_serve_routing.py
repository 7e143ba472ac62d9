"""``--model-type`` routing with real dist-info backends, each case in a fresh interpreter."""

from __future__ import annotations

from pathlib import Path

from tests.integration.serve_support import backend, make_site, ran, selected, sglang


def test_explicit_selection_imports_only_that_provider(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha"), backend("dist-b", "beta"))
    result = sglang(site, "serve", "org/model", "--model-type", "beta", "--x", "1").check()
    assert ran(result) == ["beta"]
    assert '[["--model-path", "org/model", "--x", "1"], "org/model"]' in result.stdout
    assert "IMPORTED ['sb_beta_dist_b']" in result.stdout


def test_auto_selects_the_single_match_after_loading_every_factory(tmp_path: Path) -> None:
    site = make_site(
        tmp_path,
        backend("dist-a", "alpha", "no_match"),
        backend("dist-b", "beta", "match"),
        backend("dist-c", "gamma", "unknown"),
    )
    result = sglang(site, "serve", "org/model").check()
    assert ran(result) == ["beta"]
    assert "IMPORTED ['sb_alpha_dist_a', 'sb_beta_dist_b', 'sb_gamma_dist_c']" in result.stdout


def test_several_matches_fail_and_ask_for_model_type(tmp_path: Path) -> None:
    site = make_site(
        tmp_path, backend("dist-a", "alpha", "match"), backend("dist-b", "beta", "match")
    )
    result = sglang(site, "serve", "org/model")
    assert result.returncode == 2
    assert "'alpha' (dist-a 1.0)" in result.stderr
    assert "'beta' (dist-b 1.0)" in result.stderr
    assert "--model-type" in result.stderr
    assert "Traceback" not in result.stderr
    assert ran(result) == []


def test_a_backend_without_detector_is_explicit_only(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha", "none"))
    assert selected(site, "org/model") == "llm sglang"
    assert ran(sglang(site, "serve", "org/model", "--model-type", "alpha").check()) == ["alpha"]


def test_unknown_claims_nothing_and_no_match_falls_back_to_llm(tmp_path: Path) -> None:
    site = make_site(
        tmp_path, backend("dist-a", "alpha", "unknown"), backend("dist-b", "b", "no_match")
    )
    assert selected(site, "org/model") == "llm sglang"
    assert selected(None, None) == "llm sglang"


def test_the_fallback_really_reaches_the_llm_parser(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha", "no_match"))
    result = sglang(site, "serve", "org/model", "--no-such-flag")
    assert result.returncode == 2  # the SRT argument parser's usage error: nothing started
    assert "usage: sglang serve [-h] [--model-path MODEL_PATH]" in result.stderr
    assert "--no-such-flag" in result.stderr
    assert "SPAWNED []" in result.stdout


def test_a_raising_detector_claims_nothing_with_one_warning(tmp_path: Path) -> None:
    site = make_site(
        tmp_path, backend("dist-a", "alpha", "raise"), backend("dist-b", "beta", "match")
    )
    result = sglang(site, "serve", "org/model").check()
    assert ran(result) == ["beta"]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1, result.stderr
    assert "'alpha' (dist-a 1.0)" in warnings[0]
    assert "RuntimeError: detector exploded" in warnings[0]


def test_the_in_tree_diffusion_detector_claims_a_pipeline_directory(tmp_path: Path) -> None:
    pipeline = tmp_path / "pipeline"
    pipeline.mkdir()
    (pipeline / "model_index.json").write_text("{}", encoding="utf-8")
    other = tmp_path / "llm-model"
    other.mkdir()
    assert selected(None, str(pipeline)) == "diffusion sglang"
    assert selected(None, str(other)) == "llm sglang"
    assert selected(None, "org/some-diffusion-model") == "llm sglang"


def test_a_plugin_backend_beats_the_fallback_but_ties_with_diffusion(tmp_path: Path) -> None:
    pipeline = tmp_path / "pipeline"
    pipeline.mkdir()
    (pipeline / "model_index.json").write_text("{}", encoding="utf-8")
    site = make_site(tmp_path, backend("dist-a", "alpha", "match"))
    result = sglang(site, "serve", str(pipeline))
    assert result.returncode == 2
    assert "'diffusion' (sglang" in result.stderr
    assert "'alpha' (dist-a 1.0)" in result.stderr


def test_config_only_backend_runs_without_a_model_path(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha", "none", requires_model_path=False))
    result = sglang(site, "serve", "--model-type=alpha", "--config", "c.yaml").check()
    assert '[["--config", "c.yaml"], null]' in result.stdout


def test_a_backend_that_needs_a_model_path_says_how_to_opt_out(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha", "none"))
    result = sglang(site, "serve", "--model-type", "alpha", "--config", "c.yaml")
    assert result.returncode == 2
    assert "'alpha' (dist-a 1.0) needs a model path" in result.stderr
    assert "requires_model_path=False" in result.stderr
    assert ran(result) == []
    no_path = sglang(None, "serve", "--config", "c.yaml")
    assert no_path.returncode == 2
    assert "'llm'" in no_path.stderr
    assert "requires_model_path=False" in no_path.stderr


def test_model_type_last_wins_and_after_double_dash_is_the_backends(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("dist-a", "alpha"), backend("dist-b", "beta"))
    result = sglang(
        site, "serve", "--model-type", "alpha", "m", "--model-type=beta", "--", "--model-type", "x"
    ).check()
    assert ran(result) == ["beta"]
    assert '[["--model-path", "m", "--", "--model-type", "x"], "m"]' in result.stdout


def test_srt_plugins_load_before_the_backend_runs(tmp_path: Path) -> None:
    from sglang.sdk.constants import SRT_PLUGINS_GROUP
    from tests.support.dists import Dist

    plugin = Dist(
        "hook-dist",
        entry_points={SRT_PLUGINS_GROUP: {"hooky": "hooky_plugin:register"}},
        modules={"hooky_plugin.py": "def register():\n    print('PLUGIN LOADED', flush=True)\n"},
    )
    site = make_site(tmp_path, plugin, backend("dist-a", "alpha", "none"))
    out = sglang(site, "serve", "m", "--model-type", "alpha").check().stdout.splitlines()
    assert out.index("PLUGIN LOADED") < next(i for i, line in enumerate(out) if line[:4] == "RAN ")
    help_out = sglang(site, "serve", "--model-type", "llm", "--help").check().stdout
    assert help_out.index("PLUGIN LOADED") < help_out.index("usage: sglang serve")
