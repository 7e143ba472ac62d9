"""A plugin declares the serve-backend API version it implements: only 1 exists."""

from __future__ import annotations

from sglang.cli.serve_backends import ServeBackend, ServeRequest


def run(request: ServeRequest) -> None:
    print(request.argv)


def create_backend() -> ServeBackend:
    return ServeBackend(api_version=2, run=run)  # expect-error
