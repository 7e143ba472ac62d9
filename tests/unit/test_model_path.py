"""``--model-path``: a checkpoint directory, or a Hugging Face id found in the local cache.

The cache layout and the variables that place it are checked against
``huggingface_hub`` itself (offline: ``local_files_only``), so the runtime
finds exactly what ``huggingface_hub`` would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang.srt.configs.model_path import (
    ModelPathError,
    hf_hub_cache,
    resolve_model_path,
    resolve_model_paths,
)
from sglang.srt.server_args import ServerArgs
from tests.support.dists import run_python
from tests.support.hf_cache import COMMIT, REPO_ID, hf_cache

_HF_VARS = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME")


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    (folder / "tokenizer.json").write_text("{}")
    return folder


@pytest.fixture
def cache(checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in _HF_VARS:
        monkeypatch.delenv(name, raising=False)
    root = hf_cache(checkpoint, tmp_path / "hub")
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


def test_a_checkpoint_directory_is_used_as_it_is(checkpoint: Path) -> None:
    assert resolve_model_path(str(checkpoint)) == str(checkpoint)


def test_a_directory_without_config_is_refused_but_a_tokenizer_folder_is_not(
    checkpoint: Path,
) -> None:
    (checkpoint / "config.json").unlink()
    with pytest.raises(ModelPathError, match=r"is a directory without config\.json"):
        resolve_model_path(str(checkpoint))
    assert resolve_model_path(str(checkpoint), "--tokenizer-path", checkpoint=False)


def test_a_cached_id_is_the_snapshot_huggingface_hub_finds(cache: Path) -> None:
    from huggingface_hub import snapshot_download

    found = resolve_model_path(REPO_ID)
    assert found == str(cache / "models--tiny-org--tiny-llama" / "snapshots" / COMMIT)
    assert found == snapshot_download(REPO_ID, cache_dir=cache, local_files_only=True)
    assert json.loads((Path(found) / "config.json").read_text())["architectures"]


def test_an_id_not_in_the_cache_is_one_line_naming_the_cache(cache: Path) -> None:
    with pytest.raises(ModelPathError) as caught:
        resolve_model_path("org/missing")
    message = str(caught.value)
    assert "\n" not in message
    assert "'org/missing' is neither a directory nor a model in the local Hugging Face " in message
    assert f"cache ({cache})" in message
    assert "hf download org/missing" in message


def test_a_missing_ref_is_not_found(cache: Path) -> None:
    (cache / "models--tiny-org--tiny-llama" / "refs" / "main").unlink()
    with pytest.raises(ModelPathError, match="neither a directory"):
        resolve_model_path(REPO_ID)


def test_server_args_point_at_the_snapshot_and_keep_the_id_as_the_model_name(
    cache: Path, checkpoint: Path
) -> None:
    args = ServerArgs(model_path=REPO_ID, tokenizer_path=str(checkpoint))
    resolve_model_paths(args)
    assert args.model_path.endswith(COMMIT)
    assert args.served_model_name == REPO_ID
    assert args.tokenizer_path == str(checkpoint)
    named = ServerArgs(model_path=REPO_ID, served_model_name="mine")
    resolve_model_paths(named)
    assert named.served_model_name == "mine"
    local = ServerArgs(model_path=str(checkpoint))
    resolve_model_paths(local)
    assert (local.model_path, local.served_model_name) == (str(checkpoint), None)


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"HF_HOME": "/tmp/hf-home"},
        {"XDG_CACHE_HOME": "/tmp/xdg"},
        {"HF_HOME": "/tmp/hf-home", "HF_HUB_CACHE": "/tmp/hub-cache"},
        {"HUGGINGFACE_HUB_CACHE": "/tmp/legacy"},
    ],
)
def test_the_cache_folder_follows_huggingface_hubs_variables(variables: dict[str, str]) -> None:
    code = f"""
    import os
    for name in {_HF_VARS!r}:
        os.environ.pop(name, None)
    os.environ.update({variables!r})
    from huggingface_hub import constants
    from sglang.srt.configs.model_path import hf_hub_cache
    print(constants.HF_HUB_CACHE)
    print(hf_hub_cache())
    """
    theirs, ours = run_python(code).check().stdout.split()
    assert ours == theirs


def test_the_lookup_imports_neither_torch_nor_huggingface_hub() -> None:
    code = """
    import sys
    from sglang.srt.configs.model_path import hf_hub_cache
    hf_hub_cache()
    print(sorted(m for m in ("torch", "huggingface_hub") if m in sys.modules))
    """
    assert run_python(code).check().stdout.strip() == "[]"
    assert hf_hub_cache().name == "hub"
