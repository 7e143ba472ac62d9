"""The cheap faces of SGLang Diffusion: the lazy proxy, import-safe modules, parameters, CLIs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from sglang.multimodal_gen.configs import PipelineConfig, SamplingParams
from tests.diffusion.support import make_tiny_model
from tests.support.dists import run_python
from tests.support.isolation import clean_environment

IMPORTS = """
    import json, sys
    from sglang.multimodal_gen import DiffGenerator
    import sglang.multimodal_gen.envs
    from sglang.multimodal_gen.runtime.platforms import Platform, PlatformEnum
    from sglang.multimodal_gen.runtime.platforms.plugins import HookType, plugin_hook
    print("RESULT " + json.dumps({
        "runtime": sorted(m for m in sys.modules if m.startswith("sglang.multimodal_gen.runtime.")),
        "torch": "torch" in sys.modules,
        "proxy": DiffGenerator.__module__,
    }))
"""


def test_the_proxy_and_the_import_safe_modules_import_no_runtime_module_and_no_torch() -> None:
    out = json.loads(run_python(IMPORTS).check().stdout.split("RESULT ")[1])
    assert out["torch"] is False
    assert out["proxy"] == "sglang.multimodal_gen._proxy"
    assert out["runtime"] == [
        "sglang.multimodal_gen.runtime.platforms",
        "sglang.multimodal_gen.runtime.platforms.interface",
        "sglang.multimodal_gen.runtime.platforms.plugins",
    ]


def test_sampling_params_and_pipeline_config_load_lazily_from_the_facade() -> None:
    code = """
        import sys
        import sglang.multimodal_gen as facade
        before = "sglang.multimodal_gen.configs.sampling_params" in sys.modules
        params = facade.SamplingParams(seed=3)
        print(before, type(params).__name__, facade.PipelineConfig().dtype, "torch" in sys.modules)
    """
    assert run_python(code).check().stdout.split() == [
        "False",
        "SamplingParams",
        "float32",
        "False",
    ]


def test_the_proxy_cannot_be_instantiated() -> None:
    from sglang.multimodal_gen import DiffGenerator

    with pytest.raises(TypeError, match="from_pretrained"):
        DiffGenerator()


def test_sampling_params_from_a_dict_and_their_checks() -> None:
    params = SamplingParams.from_value({"seed": 7, "height": 32, "guidance_scale": 2.5})
    assert (params.seed, params.height, params.width, params.guidance_scale) == (7, 32, 64, 2.5)
    assert SamplingParams.from_value(None) == SamplingParams()
    assert SamplingParams.from_value(params) is params
    with pytest.raises(ValueError, match=r"unknown sampling parameters \['steps'\]"):
        SamplingParams.from_value({"steps": 3})
    with pytest.raises(ValueError, match="num_inference_steps must be an int in"):
        SamplingParams(num_inference_steps=0)
    with pytest.raises(ValueError, match="guidance_scale must be a number >= 1"):
        SamplingParams(guidance_scale=0.5)
    with pytest.raises(TypeError, match="must be a SamplingParams or a dict"):
        SamplingParams.from_value([1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dtype must be one of"):
        PipelineConfig(dtype="int8")


def test_prepare_server_args_help_exits_zero_without_torch() -> None:
    code = """
        import sys
        from sglang.multimodal_gen.runtime.server_args import prepare_server_args
        try:
            prepare_server_args(["--help"])
        except SystemExit as exc:
            print("EXIT", exc.code, "torch" in sys.modules)
    """
    out = run_python(code).check().stdout
    assert "--sp-degree" in out
    assert "--enable-torch-compile" in out
    assert out.strip().endswith("EXIT 0 False")


def test_prepare_server_args_parses_flags_and_the_positional_model() -> None:
    from sglang.multimodal_gen.runtime.server_args import prepare_server_args

    args = prepare_server_args(["/m", "--sp-degree", "2", "--no-dit-layerwise-offload"])
    assert (args.model_path, args.sp_degree, args.dit_layerwise_offload) == ("/m", 2, False)
    assert prepare_server_args(["--model-path", "/n"]).dit_layerwise_offload is None
    with pytest.raises(ValueError, match="--sp-degree must be at least 1"):
        prepare_server_args(["/m", "--sp-degree", "0"]).check_server_args()


def test_make_diffusion_model_writes_the_diffusers_layout_and_refuses_a_non_empty_dir(
    tmp_path: Path,
) -> None:
    model = make_tiny_model(tmp_path / "model")
    index = json.loads((model / "model_index.json").read_text())
    assert set(index) >= {"scheduler", "text_encoder", "transformer", "vae"}
    assert (model / "scheduler" / "scheduler_config.json").is_file()
    for name in ("text_encoder", "transformer", "vae"):
        assert (model / name / "config.json").is_file()
        assert (model / name / "model.safetensors").is_file()
    command = [str(clean_environment().python), "-m", "sglang.testing.make_diffusion_model"]
    refused = subprocess.run([*command, str(model)], capture_output=True, text=True, check=False)
    assert refused.returncode == 2
    assert "not empty; pass --force" in refused.stderr
    forced = subprocess.run([*command, str(model), "--force"], capture_output=True, check=False)
    assert forced.returncode == 0
