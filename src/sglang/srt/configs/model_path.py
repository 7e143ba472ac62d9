"""Where a ``--model-path`` lives: a local folder, or a Hugging Face id in the local cache.

:func:`resolve_model_path` accepts a checkpoint directory (one holding
``config.json``) or a Hugging Face model id (``org/name``) whose snapshot
is in the local Hugging Face cache, laid out as ``huggingface_hub`` lays
it out: ``<cache>/models--org--name/refs/main`` names the commit whose
files are in ``snapshots/<commit>/``. The cache folder is
``HF_HUB_CACHE``, else ``$HF_HOME/hub`` (``HF_HOME`` defaults to
``$XDG_CACHE_HOME/huggingface``, then ``~/.cache/huggingface``), as
``huggingface_hub`` reads them. Nothing is downloaded: the runtime behaves
as ``huggingface_hub`` does with ``HF_HUB_OFFLINE=1``, so fetch a model
first (``hf download org/name``).

Importing this module imports neither torch nor ``huggingface_hub``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs

__all__ = ["ModelPathError", "hf_hub_cache", "resolve_model_path", "resolve_model_paths"]

_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")
_REVISION = "main"


class ModelPathError(ValueError):
    """A model path that names neither a checkpoint directory nor a cached Hugging Face model."""


def hf_hub_cache() -> Path:
    """The Hugging Face hub cache folder, from the same variables ``huggingface_hub`` reads."""
    explicit = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("HF_HOME")
    if not home:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
        home = str(Path(xdg) / "huggingface")
    return Path(home).expanduser() / "hub"


def _cached_snapshot(repo_id: str, cache: Path) -> Path | None:
    """The snapshot folder of *repo_id*'s ``main`` revision in *cache*, if it is there."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    try:
        commit = (repo / "refs" / _REVISION).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    snapshot = repo / "snapshots" / commit
    return snapshot if snapshot.is_dir() else None


def resolve_model_path(path: str, flag: str = "--model-path", *, checkpoint: bool = True) -> str:
    """Return the local directory that *path* names.

    *path* is returned unchanged when it is a directory (holding
    ``config.json`` when *checkpoint*: a tokenizer folder need not); a
    Hugging Face id becomes its cached snapshot folder.

    Raises:
        ModelPathError: A directory without ``config.json``, or something that
            is neither a directory nor a model in the local Hugging Face cache
            (one line naming *flag*, the path and where the cache was looked up).
    """
    local = Path(path).expanduser()
    if local.is_dir():
        if checkpoint and not (local / "config.json").is_file():
            raise ModelPathError(
                f"{flag} {path!r} is a directory without config.json: it is not a Hugging Face "
                f"checkpoint (give the folder that holds config.json and the *.safetensors files)"
            )
        return path
    cache = hf_hub_cache()
    repo_id = _REPO_ID.fullmatch(path) is not None
    snapshot = _cached_snapshot(path, cache) if repo_id else None
    if snapshot is None:
        fix = (
            f"download the model first (hf download {path}): the runtime does not download"
            if repo_id
            else "give a checkpoint directory or a Hugging Face model id (org/name)"
        )
        raise ModelPathError(
            f"{flag} {path!r} is neither a directory nor a model in the local Hugging Face "
            f"cache ({cache}); {fix}"
        )
    return resolve_model_path(str(snapshot), flag, checkpoint=checkpoint)


def resolve_model_paths(server_args: ServerArgs) -> None:
    """Point *server_args*' model and tokenizer paths at local folders (in place).

    A Hugging Face id is replaced by its cached snapshot folder; the API
    keeps reporting the id (``served_model_name`` defaults to it, as upstream).

    Raises:
        ModelPathError: See :func:`resolve_model_path`.
    """
    given = server_args.model_path
    server_args.model_path = resolve_model_path(given)
    if server_args.model_path != given and server_args.served_model_name is None:
        server_args.served_model_name = given
    if server_args.tokenizer_path:
        server_args.tokenizer_path = resolve_model_path(
            server_args.tokenizer_path, "--tokenizer-path", checkpoint=False
        )
