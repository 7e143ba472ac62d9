"""The SRT runtime's HTTP server: :func:`launch_server` and :func:`create_app`.

``launch_server(server_args)`` checks the arguments, the model path and
the address (:func:`~sglang.srt.entrypoints.startup.preflight`), starts
the :class:`~sglang.srt.entrypoints.engine.Engine` (its scheduler
processes), logs the start-up lines, serves the app on
``--host``/``--port`` under uvicorn until SIGINT or SIGTERM, then shuts
the engine down. The app offers SGLang's native ``/generate``, the
OpenAI-compatible ``/v1/completions``, ``/v1/chat/completions`` and
``/v1/models``, ``/health``, Prometheus ``/metrics`` and the native
endpoints of :mod:`~sglang.srt.entrypoints.native_routes` (server and
model info, tokenizer, aborts, ``/health_generate``) and ``/flush_cache``
(empties the prefix cache when no request is running); with ``--api-key``
every path but the probes (``/health``, ``/health_generate``, ``/ping``)
needs ``Authorization: Bearer KEY``. The reusable HTTP parts (errors, API
key, SSE, the signal-driven run) are :mod:`sglang.runtime.http`.
"""

from __future__ import annotations

import logging
import socket
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
from sglang.runtime.logs import configure_logging
from sglang.srt.entrypoints.async_engine import AsyncEngine
from sglang.srt.entrypoints.engine import Engine, FlushCacheError
from sglang.srt.entrypoints.metrics import METRICS_MEDIA_TYPE, ServerMetrics
from sglang.srt.entrypoints.native_routes import PROBE_PATHS, add_native_routes, model_card
from sglang.srt.entrypoints.openai.context import ServingContext
from sglang.srt.entrypoints.openai.protocol import (
    ChatCompletionRequest,
    CompletionRequest,
    GenerateRequest,
)
from sglang.srt.entrypoints.openai.serving_chat import create_chat_completion
from sglang.srt.entrypoints.openai.serving_completions import create_completion
from sglang.srt.entrypoints.outputs import result_dict, stream_chunk_dict
from sglang.srt.entrypoints.startup import log_startup, preflight
from sglang.srt.entrypoints.validation import InvalidRequestError, PromptItem
from sglang.srt.managers.io_struct import RequestOutput
from sglang.srt.managers.tokenizer_manager import LogprobOptions
from sglang.srt.server_args import ServerArgs

__all__ = ["create_app", "launch_server"]

_log = logging.getLogger(__name__)


def _model_name(server_args: ServerArgs) -> str:
    return server_args.served_model_name or server_args.model_path


async def _generate(ctx: ServingContext, body: GenerateRequest, request: Request) -> Response:
    prompt_field = "text" if body.text is not None else "input_ids"
    try:
        prompts = body.prompts()
    except ValueError as exc:
        raise APIError(400, str(exc), param=prompt_field) from None
    try:
        rids = body.rids(len(prompts))
    except ValueError as exc:
        raise APIError(400, str(exc), param="rid") from None
    raw = body.sampling_params
    params = list(raw) if isinstance(raw, list) else [raw] * len(prompts)
    if len(params) != len(prompts):
        raise APIError(
            400, "sampling_params must be one mapping, or one per prompt", param="sampling_params"
        )
    try:
        options = LogprobOptions.build(
            body.return_logprob,
            body.logprob_start_len,
            body.top_logprobs_num,
            body.token_ids_logprob,
            body.return_text_in_logprobs,
        )
    except InvalidRequestError as exc:
        raise APIError(400, str(exc), param=exc.param) from None
    fields = {key: f"sampling_params.{key}" for p in params for key in p or {}}
    fields["prompt"] = prompt_field
    items = [
        PromptItem(text, ids, p, rid)
        for (text, ids), p, rid in zip(prompts, params, rids, strict=True)
    ]
    streams = ctx.open("generate", items, [options] * len(items), fields=fields)
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
        return {"object": "list", "data": [model_card(ctx, server_args)]}

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

    add_native_routes(app, ctx, server_args)
    if server_args.api_key:
        app.add_middleware(ApiKeyMiddleware, api_key=server_args.api_key, open_paths=PROBE_PATHS)
    return app


def launch_server(server_args: ServerArgs, *, sock: socket.socket | None = None) -> None:
    """Check, start the engine, serve HTTP until SIGINT or SIGTERM, then stop everything.

    Blocks. A bad argument, model path or address fails before any
    scheduler is spawned. The scheduler processes are stopped on every way
    out: a signal (also one that arrives while the engine is starting), an
    error. *sock* is the socket of a
    :func:`~sglang.srt.entrypoints.startup.preflight` the caller ran already
    (the command lines run it before importing the HTTP stack, to fail fast).

    Raises:
        sglang.srt.entrypoints.startup.StartupError: The start-up checks failed.
    """
    configure_logging(server_args.log_level)
    sock = preflight(server_args) if sock is None else sock
    with sock, stop_on_signals():
        engine = Engine(server_args)
        try:
            app = create_app(engine, server_args)
            log_startup(server_args, engine, engine.get_server_info())
            serve(
                app,
                host=server_args.host,
                port=server_args.port,
                log_level=server_args.log_level,
                sock=sock,
            )
        finally:
            engine.shutdown()
