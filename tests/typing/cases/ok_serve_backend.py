"""A serve backend, as the out-of-tree serve-backend guide lays it out."""

from __future__ import annotations

import argparse
from pathlib import Path

from sglang.cli.serve_backends import (
    ServeBackend,
    ServeBackendDetection,
    ServeRequest,
)
from sglang.sdk import SERVE_BACKENDS_GROUP, ServeBackendFactory


def supports_model(model_path: str) -> bool:
    return Path(model_path, "my_runtime.json").exists()


def launch_runtime(args: argparse.Namespace, remaining: list[str]) -> None:
    print(args, remaining)


def detect(request: ServeRequest) -> ServeBackendDetection:
    if request.model_path is None:
        return ServeBackendDetection.UNKNOWN
    if supports_model(request.model_path):
        return ServeBackendDetection.MATCH
    return ServeBackendDetection.NO_MATCH


def run(request: ServeRequest) -> None:
    parser = argparse.ArgumentParser(prog="sglang serve")
    parser.add_argument("--model-path", required=True)
    parser.add_argument("--pipeline-parallel", type=int, default=1)
    args, remaining = parser.parse_known_args(request.argv)
    launch_runtime(args, remaining)


def create_backend() -> ServeBackend:
    return ServeBackend(api_version=1, run=run, detect=detect)


def create_config_only_backend() -> ServeBackend:
    return ServeBackend(
        api_version=1,
        run=run,
        detect=detect,
        requires_model_path=False,
    )


def create_explicit_only_backend() -> ServeBackend:
    return ServeBackend(api_version=1, run=run, requires_model_path=False)


factories: list[ServeBackendFactory] = [
    create_backend,
    create_config_only_backend,
    create_explicit_only_backend,
]
request = ServeRequest(
    argv=("--model-path", "org/model", "--pipeline-parallel", "2"), model_path="org/model"
)
config_only = ServeRequest(argv=("--config", "pipeline.yaml"))
verdict: ServeBackendDetection = detect(request)
group: str = SERVE_BACKENDS_GROUP
