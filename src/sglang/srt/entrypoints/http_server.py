"""The SRT runtime's HTTP server: :func:`launch_server` and :func:`create_app`.

``launch_server(server_args)`` starts the :class:`~sglang.srt.entrypoints.engine.Engine`
(its scheduler processes), serves the app on ``--host``/``--port`` under
uvicorn until SIGINT or SIGTERM, then shuts the engine down. The app
offers SGLang's native ``/generate``, the OpenAI-compatible
``/v1/completions``, ``/v1/chat/completions`` and ``/v1/models``,
``/health``, ``/get_server_info``, ``/flush_cache`` (empties the prefix
cache when no request is running) and Prometheus ``/metrics``; with
``--api-key`` every path but ``/health`` needs ``Authorization: Bearer KEY``.
The reusable HTTP parts (errors, API key, SSE, the signal-driven run) are
:mod:`sglang.runtime.http`.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse

from sglang.runtime.http import (
    SSE_MEDIA_TYPE,
    APIError,
    ApiKeyMiddleware,
    install_error_handlers,
    parse_body,
    serve,
    stop_on_signals,
)
from sglang.srt.entrypoints.async_engine import AsyncEngine
from sglang.srt.entrypoints.engine import Engine, FlushCacheError
from sglang.srt.entrypoints.metrics import METRICS_MEDIA_TYPE, ServerMetrics
from sglang.srt.entrypoints.openai.context import ServingContext, created
from sglang.srt.entrypoints.openai.protocol import (
    ChatCompletionRequest,
    CompletionRequest,
    GenerateRequest,
)
from sglang.srt.entrypoints.openai.serving_chat import create_chat_completion
from sglang.srt.entrypoints.openai.serving_completions import create_completion
from sglang.srt.entrypoints.outputs import result_dict, stream_chunk_dict
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions
from sglang.srt.server_args import ServerArgs

__all__ = ["create_app", "launch_server"]

_log = logging.getLogger(__name__)


def _model_name(server_args: ServerArgs) -> str:
    return server_args.served_model_name or server_args.model_path


async def _generate(ctx: ServingContext, body: GenerateRequest, request: Request) -> Response:
    try:
        prompts = body.prompts()
        raw = body.sampling_params
        params = list(raw) if isinstance(raw, list) else [raw] * len(prompts)
        if len(params) != len(prompts):
            raise ValueError("sampling_params must be one mapping, or one per prompt")
        options = LogprobOptions.build(
            body.return_logprob,
            body.logprob_start_len,
            body.top_logprobs_num,
            body.token_ids_logprob,
            body.return_text_in_logprobs,
        )
    except ValueError as exc:
        raise APIError(400, str(exc), param=str(exc).split(" ", 1)[0]) from None
    streams = ctx.open("generate", prompts, params, [options] * len(prompts))
    text = ctx.engine.engine.token_text
    several = body.is_batch or len(streams) > 1
    if body.stream:

        def render(index: int, output: RequestOutput) -> list[object]:
            chunk = stream_chunk_dict(output, options, text)
            return [{**chunk, "index": index} if several else chunk]

        return StreamingResponse(ctx.events(streams, render), media_type=SSE_MEDIA_TYPE)
    outputs = await ctx.collect(streams, request)
    results = [result_dict(chunks, options, text) for chunks in outputs]
    return JSONResponse(results if several else results[0])


def create_app(engine: Engine, server_args: ServerArgs) -> FastAPI:
    """The FastAPI app serving *engine* (which the caller starts and shuts down).

    Args:
        engine: A running engine.
        server_args: Its arguments (``served_model_name``, ``api_key`` are read).
    """
    app = FastAPI(title="SGLang SRT", docs_url=None, redoc_url=None, openapi_url=None)
    install_error_handlers(app)
    ctx = ServingContext(AsyncEngine(engine), ServerMetrics(), _model_name(server_args))
    app.state.serving = ctx

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        card = {"id": ctx.model_name, "object": "model", "created": created(), "owned_by": "sglang"}
        card["root"] = server_args.model_path
        card["max_model_len"] = engine.context_length
        return {"object": "list", "data": [card]}

    @app.get("/get_server_info")
    async def server_info() -> dict[str, object]:
        info = await ctx.engine.get_server_info()
        return {**info, "model_path": server_args.model_path, "served_model_name": ctx.model_name}

    @app.api_route("/flush_cache", methods=["GET", "POST"])
    async def flush_cache() -> Response:
        try:
            await ctx.engine.flush_cache()
        except FlushCacheError as exc:
            raise APIError(400, str(exc)) from None
        return PlainTextResponse("Cache flushed.\n")

    @app.get("/metrics")
    async def metrics() -> Response:
        text = ctx.metrics.render(await ctx.engine.get_server_info())
        return Response(text, media_type=METRICS_MEDIA_TYPE)

    @app.post("/generate")
    async def generate(request: Request) -> Response:
        body = await parse_body(request, GenerateRequest)
        return await _generate(ctx, body, request)

    @app.post("/v1/completions")
    async def completions(request: Request) -> Response:
        body = await parse_body(request, CompletionRequest)
        return await create_completion(ctx, body, request)

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        body = await parse_body(request, ChatCompletionRequest)
        return await create_chat_completion(ctx, body, request)

    if server_args.api_key:
        app.add_middleware(ApiKeyMiddleware, api_key=server_args.api_key)
    return app


def launch_server(server_args: ServerArgs) -> None:
    """Start the engine, serve HTTP until SIGINT or SIGTERM, then stop everything.

    Blocks. The scheduler processes are stopped on every way out: a
    signal (also one that arrives while the engine is starting), an
    address already in use, an error.
    """
    logging.basicConfig(
        level=server_args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    with stop_on_signals():
        engine = Engine(server_args)
        try:
            app = create_app(engine, server_args)
            _log.info(
                "serving %s on http://%s:%d",
                _model_name(server_args),
                server_args.host,
                server_args.port,
            )
            serve(
                app, host=server_args.host, port=server_args.port, log_level=server_args.log_level
            )
        finally:
            engine.shutdown()
