"""The diffusion HTTP server: ``/v1/images/generations`` (OpenAI shape) and ``/health``.

:func:`launch_server` starts the HTTP server child, which registers the
plugins and applies their hooks before it imports
:mod:`sglang.multimodal_gen.runtime.launch_server`; there a ``DiffGenerator``
starts the scheduler workers and uvicorn serves :func:`build_app` on
``--host``/``--port`` until SIGINT or SIGTERM, the workers stopped on every
exit path. With ``--api-key`` every path but ``/health`` requires
``Authorization: Bearer KEY``. Requests are validated strictly: unknown
fields, ``n`` other than 1, a malformed ``size`` or a bad parameter are a
400 in the OpenAI error shape. Errors, the API key and the signal-driven
run are the shared :mod:`sglang.runtime.http` pieces the SRT server uses.
"""

from __future__ import annotations

import base64
import io
import re
import time
from typing import TYPE_CHECKING, Any, Literal

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from sglang.runtime.http import APIError, ApiKeyMiddleware, install_error_handlers, parse_body

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


def _png_b64(image: Any) -> str:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def build_app(generator: DiffGenerator, api_key: str | None = None) -> FastAPI:
    """The FastAPI app serving *generator*; with *api_key*, every path but ``/health`` needs it."""
    app = FastAPI(title="SGLang Diffusion")
    install_error_handlers(app)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/images/generations")
    async def generations(request: Request) -> dict[str, object]:
        body = await parse_body(request, ImageGenerationRequest)
        try:
            params = body.sampling_params()
            image = await run_in_threadpool(generator.generate, body.prompt, params)
        except ValueError as exc:
            raise APIError(400, str(exc)) from None
        return {"created": int(time.time()), "data": [{"b64_json": _png_b64(image)}]}

    if api_key is not None:
        app.add_middleware(ApiKeyMiddleware, api_key=api_key)
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
    from sglang.multimodal_gen import envs
    from sglang.multimodal_gen.runtime.managers.worker_bootstrap import (
        HTTPServerProcessSpec,
        ServerArgsPayload,
    )
    from sglang.multimodal_gen.runtime.platforms.plugins import apply_plugin_hooks
    from sglang.runtime.bootstrap import WorkerGroup
    from sglang.runtime.http import stop_on_signals

    apply_plugin_hooks()
    server_args.check_server_args()
    payload = ServerArgsPayload.from_server_args(server_args)
    group = WorkerGroup([HTTPServerProcessSpec.for_server(payload)])
    with stop_on_signals():
        try:
            group.start().wait_ready(timeout=envs.start_timeout())
            group.processes[0].join()
            if group.processes[0].exitcode not in (0, None):
                group.recv(0, timeout=1)  # raises with the child's own error
        finally:
            group.shutdown(grace=_STOP_GRACE)
