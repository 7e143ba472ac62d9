"""The diffusion HTTP server: ``/v1/images/generations`` (OpenAI shape) and ``/health``.

:func:`launch_server` starts a ``DiffGenerator``
(its workers run the plugin steps and hooks before any runtime module is
imported in them) and serves it on ``--host``/``--port`` until SIGINT or
SIGTERM; the workers are stopped on every exit path. With ``--api-key``
every endpoint requires ``Authorization: Bearer KEY``. Requests are
validated strictly: unknown fields, ``n`` other than 1, a malformed
``size`` or a bad parameter are a 400 in the OpenAI error shape.
"""

from __future__ import annotations

import base64
import contextlib
import io
import re
import time
from collections.abc import Iterator
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
    """Start the workers and serve until interrupted; the workers stop on every exit path."""
    import uvicorn

    from sglang.multimodal_gen.runtime.entrypoints.diff_generator import DiffGenerator

    class Server(uvicorn.Server):
        """uvicorn, minus re-raising the stop signal: the workers are stopped first."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                captured = getattr(self, "_captured_signals", None)
                if isinstance(captured, list):
                    captured.clear()  # a signal is how this server is meant to stop

    with DiffGenerator(server_args) as generator:
        app = build_app(generator, server_args.api_key)
        config = uvicorn.Config(
            app, host=server_args.host, port=server_args.port, log_level=server_args.log_level
        )
        Server(config).run()
