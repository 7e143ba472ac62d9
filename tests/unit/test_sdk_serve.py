"""``sglang.sdk.serve``: ServeRequest, ServeBackendDetection, ServeBackend validation."""

from __future__ import annotations

from typing import Any, cast

import pytest

from sglang.sdk import SERVE_BACKEND_API_VERSION, SUPPORTED_SERVE_BACKEND_API_VERSIONS
from sglang.sdk.serve import ServeBackend, ServeBackendDetection, ServeRequest


def run(request: ServeRequest) -> None:
    del request


def detect(request: ServeRequest) -> ServeBackendDetection:
    return (
        ServeBackendDetection.UNKNOWN
        if request.model_path is None
        else (ServeBackendDetection.MATCH)
    )


def test_detection_members() -> None:
    assert [member.name for member in ServeBackendDetection] == ["MATCH", "NO_MATCH", "UNKNOWN"]


def test_serve_request_defaults_and_is_frozen() -> None:
    request = ServeRequest(argv=("--config", "pipeline.yaml"))
    assert request.model_path is None
    assert request.argv == ("--config", "pipeline.yaml")
    with pytest.raises(AttributeError):
        request.argv = ()  # type: ignore[misc]


def test_serve_request_carries_the_normalised_arguments() -> None:
    argv = ("--model-path", "org/model", "--pipeline-parallel", "2")
    request = ServeRequest(argv=argv, model_path="org/model")
    assert request == ServeRequest(argv, "org/model")
    assert detect(request) is ServeBackendDetection.MATCH


def test_backend_defaults() -> None:
    backend = ServeBackend(api_version=1, run=run)
    assert backend.detect is None
    assert backend.requires_model_path is True
    assert backend.run is run


def test_config_only_backend() -> None:
    backend = ServeBackend(api_version=1, run=run, detect=detect, requires_model_path=False)
    assert backend.requires_model_path is False
    assert backend.detect is detect


def test_backend_is_frozen() -> None:
    backend = ServeBackend(api_version=1, run=run)
    with pytest.raises(AttributeError):
        backend.requires_model_path = False  # type: ignore[misc]


def test_current_version_is_supported() -> None:
    assert SERVE_BACKEND_API_VERSION in SUPPORTED_SERVE_BACKEND_API_VERSIONS
    for version in SUPPORTED_SERVE_BACKEND_API_VERSIONS:
        assert ServeBackend(api_version=cast("Any", version), run=run).api_version == version


@pytest.mark.parametrize("version", [2, 0, -1, True, "1", 1.0, None])
def test_unsupported_api_version_is_an_actionable_value_error(version: object) -> None:
    with pytest.raises(ValueError, match="api_version") as caught:
        ServeBackend(api_version=cast("Any", version), run=run)
    message = str(caught.value)
    assert repr(version) in message
    assert "supported: 1" in message
    assert "ServeBackend(api_version=1" in message
    assert "upgrade sglang" in message


@pytest.mark.parametrize("value", [None, "pkg.mod:run", 42])
def test_run_must_be_callable(value: object) -> None:
    with pytest.raises(TypeError, match="run must be callable"):
        ServeBackend(api_version=1, run=cast("Any", value))


@pytest.mark.parametrize("value", ["pkg.mod:detect", ServeBackendDetection.MATCH])
def test_detect_must_be_callable_or_none(value: object) -> None:
    with pytest.raises(TypeError, match="detect must be callable"):
        ServeBackend(api_version=1, run=run, detect=cast("Any", value))


def test_api_version_is_checked_before_callables() -> None:
    with pytest.raises(ValueError, match="api_version"):
        ServeBackend(api_version=cast("Any", 2), run=cast("Any", None))
