"""A detector answers with ServeBackendDetection, not a bool."""

from __future__ import annotations

from sglang.cli.serve_backends import ServeBackend, ServeRequest


def detect(request: ServeRequest) -> bool:
    return request.model_path is not None


def run(request: ServeRequest) -> None:
    print(request.argv)


def create_backend() -> ServeBackend:
    return ServeBackend(api_version=1, run=run, detect=detect)  # expect-error
