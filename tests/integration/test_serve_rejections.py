"""Bad serve-backend registrations: each makes only its own name unusable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.serve_support import backend, make_site, ran, selected, sglang

HEADER = "from sglang.cli.serve_backends import ServeBackend\ndef run(request): pass\n"

BAD_FACTORIES = {
    "version-after-construction": (
        HEADER
        + "def create():\n    b = ServeBackend(api_version=1, run=run)\n"
        + "    object.__setattr__(b, 'api_version', 2)\n    return b\n",
        "api_version=2 is not supported by sglang (supported: 1)",
    ),
    "version-in-constructor": (
        HEADER + "def create():\n    return ServeBackend(api_version=2, run=run)\n",
        "the factory raised ValueError: ServeBackend api_version=2 is not supported",
    ),
    "raises": (
        HEADER + "def create():\n    raise OSError('no config')\n",
        "the factory raised OSError: no config",
    ),
    "returns-other": (
        HEADER + "def create():\n    return {'api_version': 1, 'run': run}\n",
        "the factory returned builtins.dict, not a ServeBackend",
    ),
    "takes-arguments": (
        HEADER + "def create(config):\n    return ServeBackend(api_version=1, run=run)\n",
        "the factory must take no arguments",
    ),
    "not-callable": (HEADER + "create = 42\n", "is int, not a callable factory"),
    "import-fails": ("import no_such_module_anywhere\n", "importing sb_bad_bad_dist:create failed"),
    "malformed": (
        HEADER
        + "def create():\n    b = ServeBackend(api_version=1, run=run)\n"
        + "    object.__setattr__(b, 'requires_model_path', 'yes')\n    return b\n",
        "requires_model_path is not a bool",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FACTORIES))
def test_selecting_a_bad_factory_is_an_error_without_traceback(tmp_path: Path, case: str) -> None:
    source, reason = BAD_FACTORIES[case]
    site = make_site(
        tmp_path, backend("bad-dist", "bad", source=source), backend("ok", "good", "match")
    )
    result = sglang(site, "serve", "m", "--model-type", "bad")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "serve backend 'bad' of bad-dist 1.0" in result.stderr
    assert reason in result.stderr
    # everything else keeps working: auto skips it with one WARNING
    auto = sglang(site, "serve", "m").check()
    assert ran(auto) == ["good"]
    warnings = [line for line in auto.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1, auto.stderr
    assert "'bad' of bad-dist 1.0" in warnings[0]
    assert reason in warnings[0]
    assert ran(sglang(site, "serve", "m", "--model-type", "good").check()) == ["good"]


def test_duplicate_names_list_both_distributions(tmp_path: Path) -> None:
    site = make_site(
        tmp_path,
        backend("first-dist", "twin", "match"),
        backend("second-dist", "twin", "match"),
        backend("ok", "good", "none"),
    )
    result = sglang(site, "serve", "m", "--model-type", "twin")
    assert result.returncode == 2
    assert "first-dist 1.0" in result.stderr
    assert "second-dist 1.0" in result.stderr
    assert "uninstall all but one" in result.stderr
    assert "Traceback" not in result.stderr
    assert ran(sglang(site, "serve", "m", "--model-type", "good").check()) == ["good"]
    # auto: neither twin claims, one WARNING whenever the registry is read
    assert selected(site, "m") == "llm sglang"
    help_run = sglang(site, "serve", "--help").check()
    warnings = [line for line in help_run.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1
    assert "first-dist" in warnings[0]
    assert "second-dist" in warnings[0]
    assert "unusable registrations:" in help_run.stdout


@pytest.mark.parametrize("name", ["auto", "llm", "diffusion"])
def test_reserved_names_are_rejected_and_the_builtin_stays(tmp_path: Path, name: str) -> None:
    site = make_site(tmp_path, backend("squatter", name, "match"), backend("ok", "good", "match"))
    result = sglang(site, "serve", "m", "--model-type", "good").check()
    assert ran(result) == ["good"]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1
    assert f"serve backend {name!r} of squatter 1.0" in warnings[0]
    assert "reserved" in warnings[0]
    assert "rename the entry point" in warnings[0]
    if name != "auto":
        assert selected(site, None, name) == f"{name} sglang"


def test_unknown_names_list_the_available_ones(tmp_path: Path) -> None:
    site = make_site(tmp_path, backend("ok", "good"))
    result = sglang(site, "serve", "m", "--model-type", "nope")
    assert result.returncode == 2
    assert "unknown serve backend 'nope'" in result.stderr
    assert "available: auto, llm, diffusion, good" in result.stderr


@pytest.mark.parametrize("argv", [["--model-type"], ["--model-type="], ["--model-type", "--x"]])
def test_model_type_without_a_value_is_a_usage_error(argv: list[str]) -> None:
    result = sglang(None, "serve", "m", *argv)
    assert result.returncode == 2
    assert "--model-type needs a backend name" in result.stderr
