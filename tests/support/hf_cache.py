"""A Hugging Face hub cache folder written as ``huggingface_hub`` writes one: :func:`hf_cache`."""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["COMMIT", "REPO_ID", "hf_cache"]

REPO_ID = "tiny-org/tiny-llama"
"""The model id the cache holds."""

COMMIT = "0123456789abcdef0123456789abcdef01234567"
"""The commit ``refs/main`` names."""


def hf_cache(model: Path, root: Path, repo_id: str = REPO_ID) -> Path:
    """*root* as a Hugging Face hub cache holding the files of *model* as *repo_id*.

    The layout is the hub's: each file's content in ``blobs/<sha256>``, the
    snapshot ``snapshots/<commit>/`` made of relative symbolic links to
    them, ``refs/main`` naming the commit.
    """
    repo = root / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir()
    for file in model.iterdir():
        data = file.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snapshot / file.name).symlink_to(Path("../../blobs") / blob.name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    return root
