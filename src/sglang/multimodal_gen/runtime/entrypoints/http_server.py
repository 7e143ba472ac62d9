"""The diffusion HTTP server: ``/v1/images/generations`` (OpenAI shape) and ``/health``.

:func:`launch_server` starts the HTTP server child, which registers the
plugins and applies their hooks before it imports
:mod:`sglang.multimodal_gen.runtime.launch_server`; there a ``DiffGenerator``
starts the scheduler workers and uvicorn serves :func:`build_app` on
``--host``/``--port`` until SIGINT or SIGTERM, the workers stopped on every
exit path. With ``--api-key`` every endpoint requires ``Authorization:
Bearer KEY``. Requests are validated strictly: unknown fields, ``n`` other
than 1, a malformed ``size`` or a bad parameter are a 400 in the OpenAI
error shape.
"""

from __future__ import annotations

import base64
import io
import re
import time
from typing import TYPE_CHECKING, Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.entrypoints.diff_generator import DiffGenerator
    from sglang.multimodal_gen.runtime.server_args import ServerArgs

__all__ = ["ImageGenerationRequest", "build_app", "launch_server"]

_SIZE = re.compile(r"^(\d+)x(\d+)$")
_STOP_GRACE = 20.0  # the child stops its own workers first


class ImageGenerationRequest(BaseModel):
    """The body of ``POST /v1/images/generations`` (OpenAI fields plus sampling extensions)."""

    model_config = ConfigDict(extra="forbid")

    prompt: str = Field(min_length=1)
    model: str | None = None
    n: int = 1
    size: str | None = None
    response_format: Literal["b64_json"] = "b64_json"
    seed: int | None = None
    num_inference_steps: int | None = None
    guidance_scale: float | None = None
    negative_prompt: str | None = None

    def sampling_params(self) -> dict[str, object]:
        """The request's :class:`~sglang.multimodal_gen.SamplingParams` fields.

        Raises:
            ValueError: ``n`` is not 1 or ``size`` is not ``"WxH"``.
        """
        if self.n != 1:
            raise ValueError(f"n must be 1 (got {self.n})")
        params: dict[str, object] = {
            name: value
            for name in ("seed", "num_inference_steps", "guidance_scale", "negative_prompt")
            if (value := getattr(self, name)) is not None
        }
        if self.size is not None:
            match = _SIZE.match(self.size)
            if match is None:
                raise ValueError(f"size must be 'WIDTHxHEIGHT', like '64x64' (got {self.size!r})")
            params["width"], params["height"] = int(match[1]), int(match[2])
        return params


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "param": None, "code": status}}
    return JSONResponse(body, status_code=status)


def _png_b64(image: Any) -> str:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def build_app(generator: DiffGenerator, api_key: str | None = None) -> FastAPI:
    """The FastAPI app serving *generator* (``api_key``: require a bearer token)."""
    app = FastAPI(title="SGLang Diffusion")

    @app.middleware("http")
    async def check_api_key(request: Request, call_next: Any) -> Any:
        if api_key is not None and request.headers.get("authorization") != f"Bearer {api_key}":
            return _error(401, "invalid or missing API key (Authorization: Bearer KEY)")
        return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'][1:]) or 'body'}: {error['msg']}"
            for error in exc.errors()
        )
        return _error(400, problems)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/images/generations", response_model=None)
    def generations(body: ImageGenerationRequest) -> dict[str, object] | JSONResponse:
        try:
            image = generator.generate(body.prompt, body.sampling_params())
        except ValueError as exc:
            return _error(400, str(exc))
        return {"created": int(time.time()), "data": [{"b64_json": _png_b64(image)}]}

    return app


def launch_server(server_args: ServerArgs) -> None:
    """Serve *server_args*' model until SIGINT or SIGTERM, from an HTTP server child.

    The child (``worker_bootstrap.HTTPServerProcessSpec``) registers the
    plugins and applies their hooks before it imports
    ``runtime.launch_server``; it starts the scheduler workers itself. A
    signal here stops the child, which stops its workers first.

    Raises:
        sglang.runtime.bootstrap.WorkerFailedError: The server child failed
            (its error and traceback text are in the message).
    """
    import signal

    from sglang.multimodal_gen import envs
    from sglang.multimodal_gen.runtime.managers.worker_bootstrap import (
        HTTPServerProcessSpec,
        ServerArgsPayload,
    )
    from sglang.multimodal_gen.runtime.platforms.plugins import apply_plugin_hooks
    from sglang.runtime.bootstrap import WorkerGroup

    apply_plugin_hooks()
    server_args.check_server_args()
    payload = ServerArgsPayload.from_server_args(server_args)
    group = WorkerGroup([HTTPServerProcessSpec.for_server(payload)])

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        group.start().wait_ready(timeout=envs.start_timeout())
        group.processes[0].join()
        if group.processes[0].exitcode not in (0, None):
            group.recv(0, timeout=1)  # raises with the child's own error
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        group.shutdown(grace=_STOP_GRACE)
