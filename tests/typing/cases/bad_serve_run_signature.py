"""``run`` receives the ServeRequest; factories take no arguments."""

from __future__ import annotations

from sglang.cli.serve_backends import ServeBackend
from sglang.sdk import ServeBackendFactory


def run(argv: list[str]) -> None:
    print(argv)


def create_backend() -> ServeBackend:
    return ServeBackend(api_version=1, run=run)  # expect-error


def create_configured_backend(config: str) -> ServeBackend:
    raise NotImplementedError(config)


def create_nothing() -> None:
    return None


factory: ServeBackendFactory = create_configured_backend  # expect-error
empty: ServeBackendFactory = create_nothing  # expect-error
