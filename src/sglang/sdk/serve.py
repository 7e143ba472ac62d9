"""The serve-backend contract: plug a whole runtime into ``sglang serve``.

A distribution registers an argument-less factory under the
``sglang.serve_backends`` entry-point group; the factory returns a
:class:`ServeBackend`. ``sglang serve --model-type NAME`` then hands the
backend a :class:`ServeRequest` with the normalised arguments.
"""

from __future__ import annotations

import enum

from sglang.sdk._record import Record
from sglang.sdk.constants import SUPPORTED_SERVE_BACKEND_API_VERSIONS, ServeBackendApiVersion

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ServeBackend", "ServeBackendDetection", "ServeRequest"]


class ServeRequest(Record):
    """What ``sglang serve`` passes to a backend.

    Attributes:
        argv: The backend's arguments with ``--model-type`` removed and a
            positional model path normalised to ``--model-path PATH``.
        model_path: The model path or Hugging Face ID, or ``None`` for a
            config-only invocation.
    """

    argv: tuple[str, ...]
    model_path: str | None = None


class ServeBackendDetection(enum.Enum):
    """A detector's verdict on whether a backend serves a request."""

    MATCH = "match"
    """The backend serves this model; it claims the request."""

    NO_MATCH = "no_match"
    """The backend does not serve this model."""

    UNKNOWN = "unknown"
    """The detector cannot tell; the request is not claimed."""


class ServeBackend(Record):
    """A serve backend, as returned by a plugin's factory.

    Attributes:
        api_version: The contract version the plugin was written against,
            as a literal (``1``); never copy SGLang's current constant.
        run: Serves the request, blocking for the server's lifetime. Must
            handle ``-h``/``--help`` without starting a server.
        detect: Optional cheap detector for ``--model-type auto``; a backend
            without one is reachable only by explicit selection.
        requires_model_path: ``False`` for config-only runtimes.

    Raises:
        ValueError: if *api_version* is not one this release supports.
        TypeError: if *run* or *detect* is not callable.
    """

    api_version: ServeBackendApiVersion
    run: Callable[[ServeRequest], None]
    detect: Callable[[ServeRequest], ServeBackendDetection] | None = None
    requires_model_path: bool = True

    def __post_init__(self) -> None:
        version: object = self.api_version
        if type(version) is not int or version not in SUPPORTED_SERVE_BACKEND_API_VERSIONS:
            supported = ", ".join(str(v) for v in sorted(SUPPORTED_SERVE_BACKEND_API_VERSIONS))
            raise ValueError(
                f"ServeBackend api_version={version!r} is not supported by this sglang "
                f"(supported: {supported}); declare the version the backend implements "
                f"as an int literal, for example ServeBackend(api_version=1, ...), or "
                f"upgrade sglang if the backend targets a newer API"
            )
        if not callable(self.run):
            raise TypeError(f"ServeBackend run must be callable, got {self.run!r}")
        if self.detect is not None and not callable(self.detect):
            raise TypeError(f"ServeBackend detect must be callable or None, got {self.detect!r}")
