"""The in-tree ``diffusion`` serve backend.

Its detector claims a request under ``--model-type auto`` when the model
path is a local directory holding a diffusers-style ``model_index.json``:

* no model path: ``UNKNOWN`` (a config-only request is not ours to claim);
* a directory with ``model_index.json``: ``MATCH``;
* anything else (another directory, a file, a Hugging Face ID): ``NO_MATCH``.
  A Hub ID is not looked up (no network access, no cache reads, so that
  routing stays cheap and deterministic): serve a Hub diffusion model with
  ``--model-type diffusion``, or point at a local snapshot.

``run()`` imports the diffusion server only when it runs; importing this
module and detecting import neither torch nor the runtime.
"""

from __future__ import annotations

import os

from sglang.runtime.optional import import_required
from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest

__all__ = ["MODEL_INDEX", "create_backend", "detect", "run"]

MODEL_INDEX = "model_index.json"
"""The file that marks a diffusers-style pipeline directory."""

_PACKAGE = "sglang.multimodal_gen.runtime"
_NEEDED_BY = "the diffusion serve backend"
_HINT = "install the diffusion extra: pip install 'sglang[all]'"


def detect(request: ServeRequest) -> ServeBackendDetection:
    """Claim local pipeline directories (see the module docstring for the rules)."""
    if request.model_path is None:
        return ServeBackendDetection.UNKNOWN
    if os.path.isfile(os.path.join(request.model_path, MODEL_INDEX)):
        return ServeBackendDetection.MATCH
    return ServeBackendDetection.NO_MATCH


def run(request: ServeRequest) -> None:
    """Parse the diffusion server arguments of *request* and serve until shut down."""
    prepare_server_args = import_required(
        f"{_PACKAGE}.server_args", "prepare_server_args", _NEEDED_BY, _HINT
    )
    server_args = prepare_server_args(list(request.argv))
    launch_server = import_required(
        f"{_PACKAGE}.entrypoints.http_server", "launch_server", _NEEDED_BY, _HINT
    )
    launch_server(server_args)


def create_backend() -> ServeBackend:
    """The ``diffusion`` backend's factory (argument-less, as the registry calls it)."""
    return ServeBackend(api_version=1, run=run, detect=detect)
