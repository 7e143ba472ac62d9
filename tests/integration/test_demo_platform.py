"""``examples/demo_platform`` installed for real into a temporary venv, then selected.

The venv sees this environment's packages through the plugin-free view
(:mod:`tests.support.isolation`: sglang, torch, pip and the build backend
from the ``dev`` extra, but no other installed sglang plugin, not even an
installed copy of this example) and gets ``sglang-demo-platform`` built
from its ``pyproject.toml`` and installed into its own ``site-packages`` by
pip, without network access. Each check runs the venv's interpreter with an
explicit environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.examples import install_examples, run_in
from tests.support.isolation import venv_site_packages


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the demo platform installed by pip; returns its interpreter."""
    root = tmp_path_factory.mktemp("demo-venv")
    python = install_examples(root, "demo_platform")
    # pip put the distribution into the venv's own site-packages, not the view
    infos = list(venv_site_packages(root / "venv").glob("*.dist-info"))
    assert [info.name for info in infos] == ["sglang_demo_platform-0.1.0.dist-info"], infos
    return python


SRT_CHECK = """
    import sys
    import sglang.srt.platforms as platforms
    p = platforms.current_platform
    print("CLASS", type(p).__module__ + "." + type(p).__qualname__)
    print("DIST", platforms.get_selected_platform_dist())
    print("OOT", p.is_out_of_tree(), "NAME", p.device_name, "KEY", p.get_dispatch_key_name())
    print("MEMORY_OK", p.get_device_total_memory() > 0, p.get_current_memory_usage() > 0)
    print("BACKEND", p.get_torch_distributed_backend_str(), p.get_device_capability())
    print("TORCH", "torch" in sys.modules)
    platforms.initialize_current_platform()
    platforms.initialize_current_platform()
    print("INIT_CALLS", type(p)._init_backend_calls)
    print("DEVICE", p.get_device(0))
"""

DIFFUSION_CHECK = """
    import sglang.multimodal_gen.runtime.platforms as platforms
    p = platforms.current_platform
    print("CLASS", type(p).__module__ + "." + type(p).__qualname__)
    print("DIST", platforms.get_selected_platform_dist())
    print("OOT", p.is_out_of_tree(), "NAME", p.device_name, "KEY", p.get_dispatch_key_name())
    print("MEMORY_OK", p.get_device_total_memory() > 0, p.get_available_gpu_memory() > 0)
    print("LOCAL", p.get_local_torch_device())
    platforms.initialize_current_platform()
    print("INIT_CALLS", type(p)._init_backend_calls)
"""


def test_srt_selects_demo_by_name(venv_python: Path) -> None:
    out = run_in(venv_python, SRT_CHECK, {"SGLANG_PLATFORM": "demo"}).check().stdout
    assert "CLASS sglang_demo_platform.platform.DemoSRTPlatform" in out
    assert "DIST sglang-demo-platform" in out
    assert "OOT True NAME demo KEY demo" in out
    assert "MEMORY_OK True True" in out
    assert "BACKEND gloo DeviceCapability(major=1, minor=0)" in out
    assert "TORCH False" in out  # selecting a plugin platform needs no torch
    assert "INIT_CALLS 1" in out
    assert "DEVICE cpu" in out


def test_diffusion_selects_demo_by_name(venv_python: Path) -> None:
    env = {"SGLANG_DIFFUSION_PLATFORM_OVERRIDE": "demo"}
    out = run_in(venv_python, DIFFUSION_CHECK, env).check().stdout
    assert "CLASS sglang_demo_platform.diffusion_platform.DemoDiffusionPlatform" in out
    assert "DIST sglang-demo-platform" in out
    assert "OOT True NAME demo KEY demo" in out
    assert "MEMORY_OK True True" in out
    assert "LOCAL cpu" in out
    assert "INIT_CALLS 1" in out


def test_auto_discovery_finds_demo_in_both_runtimes(venv_python: Path) -> None:
    srt = run_in(venv_python, SRT_CHECK).check().stdout
    assert "CLASS sglang_demo_platform.platform.DemoSRTPlatform" in srt
    diffusion = run_in(venv_python, DIFFUSION_CHECK).check().stdout
    assert "CLASS sglang_demo_platform.diffusion_platform.DemoDiffusionPlatform" in diffusion


def test_switched_off_device(venv_python: Path) -> None:
    explicit = run_in(
        venv_python, SRT_CHECK, {"SGLANG_PLATFORM": "demo", "SGLANG_DEMO_DEVICE": "0"}
    )
    assert explicit.returncode != 0
    assert "SRT platform plugin 'demo' (distribution sglang-demo-platform 0.1.0)" in (
        explicit.stderr
    )
    assert "reports that its hardware is unavailable" in explicit.stderr
    auto = run_in(
        venv_python,
        "from sglang.srt.platforms import current_platform as p; print(type(p).__name__)",
        {"SGLANG_DEMO_DEVICE": "0", "SGLANG_USE_CPU_ENGINE": "1"},
    ).check()
    assert auto.stdout.strip() == "CpuSRTPlatform"
    diffusion = run_in(
        venv_python,
        "from sglang.multimodal_gen.runtime.platforms import current_platform as p\n"
        "print(type(p).__name__)",
        {"SGLANG_DEMO_DEVICE": "0"},
    ).check()
    assert diffusion.stdout.strip() == "CpuPlatform"


def test_demo_is_installed_as_a_real_distribution(venv_python: Path) -> None:
    out = run_in(
        venv_python,
        """
        from importlib.metadata import distribution
        dist = distribution("sglang-demo-platform")
        print(sorted((ep.group, ep.name, ep.value) for ep in dist.entry_points))
        """,
    ).check()
    assert (
        "('sglang.multimodal_gen.platforms', 'demo', 'sglang_demo_platform:activate_diffusion')"
        in (out.stdout)
    )
    assert "('sglang.srt.platforms', 'demo', 'sglang_demo_platform:activate')" in out.stdout
