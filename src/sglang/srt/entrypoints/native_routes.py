"""SGLang's native endpoints beside ``/generate``, in upstream's paths and shapes.

==========================================  ===============================================
endpoint                                    answer
==========================================  ===============================================
``GET /v1/models/{model}``                  the model card; ``404 model_not_found`` for
                                            another id
``GET /health_generate``                    ``200`` once a one-token generation went
                                            through the scheduler (or, when it is busy,
                                            once it sent anything), ``503`` when nothing
                                            came back within ``SGLANG_HEALTH_CHECK_TIMEOUT``
``GET /ping``                               ``200`` while the HTTP server runs
``GET /get_model_info``, ``/model_info``    ``model_path``, ``tokenizer_path``,
                                            ``is_generation``, ...
``GET /get_server_info``, ``/server_info``  the server arguments, the scheduler's limits
                                            and state, ``max_total_num_tokens``,
                                            ``internal_states``, ``version``
``POST /tokenize``, ``/v1/tokenize``        ``{"tokens", "count", "max_model_len"}``
``POST /detokenize``, ``/v1/detokenize``    ``{"text"}``
``POST /abort_request``                     aborts ``rid`` (or every request with
                                            ``abort_all``); their KV pages are freed at once
==========================================  ===============================================

:func:`add_native_routes` adds them to the app of
:func:`~sglang.srt.entrypoints.http_server.create_app`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import uuid
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict
from starlette.responses import Response

from sglang._version import __version__
from sglang.runtime.http import APIError, parse_body
from sglang.srt.entrypoints.openai.context import ServingContext, created
from sglang.srt.entrypoints.startup import SGLANG_HEALTH_CHECK_TIMEOUT, health_check_timeout
from sglang.srt.server_args import ServerArgs

__all__ = [
    "PROBE_PATHS",
    "AbortRequestBody",
    "DetokenizeRequest",
    "TokenizeRequest",
    "add_native_routes",
    "model_card",
]

PROBE_PATHS = ("/health", "/health_generate", "/ping")
"""The paths served without an API key: what load balancers and orchestrators probe."""

_HEALTH_PARAMS = {"max_new_tokens": 1, "temperature": 0}
_POLL = 0.05
_SECRET_ARGS = frozenset({"api_key"})
"""Server arguments never echoed by ``/get_server_info``."""

_log = logging.getLogger("sglang.srt.entrypoints.http_server")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenizeRequest(_Strict):
    """``POST /tokenize``: one text or several, tokenized as prompts are."""

    model: str | None = None
    prompt: str | list[str]
    add_special_tokens: bool = True


class DetokenizeRequest(_Strict):
    """``POST /detokenize``: one list of token ids or several."""

    model: str | None = None
    tokens: list[int] | list[list[int]]
    skip_special_tokens: bool = True


class AbortRequestBody(_Strict):
    """``POST /abort_request``: the request to abort, or ``abort_all``."""

    rid: str = ""
    abort_all: bool = False


def model_card(ctx: ServingContext, server_args: ServerArgs) -> dict[str, Any]:
    """The OpenAI model object of the served model (``/v1/models`` lists it)."""
    return {
        "id": ctx.model_name,
        "object": "model",
        "created": created(),
        "owned_by": "sglang",
        "root": server_args.model_path,
        "max_model_len": ctx.engine.engine.context_length,
    }


async def _health_generate(ctx: ServingContext, timeout: float) -> Response:
    """Run a one-token generation; 200 once the scheduler answers, 503 after *timeout*."""
    started = time.monotonic()
    rid = f"HEALTH_CHECK_{uuid.uuid4().hex}"
    try:
        stream = ctx.engine.open(None, _HEALTH_PARAMS, [0], rid=rid)
    except (ValueError, RuntimeError):  # a failed or stopped engine
        return Response(status_code=503)
    first = asyncio.ensure_future(stream.__anext__())
    try:
        while time.monotonic() - started < timeout:
            done, _ = await asyncio.wait({first}, timeout=_POLL)
            if done:
                return Response(status_code=200 if first.exception() is None else 503)
            if ctx.engine.engine.last_receive_time > started:  # busy, and still working
                return Response(status_code=200)
        _log.error(
            "health check failed: the scheduler sent nothing for %.1f s (%s)",
            timeout,
            SGLANG_HEALTH_CHECK_TIMEOUT,
        )
        return Response(status_code=503)
    finally:
        first.cancel()
        stream.close()  # aborts the check if it is still queued


def _server_info(
    ctx: ServingContext, server_args: ServerArgs, info: dict[str, object]
) -> dict[str, object]:
    engine = ctx.engine.engine
    args = {k: v for k, v in dataclasses.asdict(server_args).items() if k not in _SECRET_ARGS}
    return {
        **args,
        **info,
        "max_total_num_tokens": engine.max_total_tokens,
        "max_req_input_len": min(engine.context_length, engine.max_total_tokens) - 1,
        "internal_states": [info],
        "version": __version__,
        "model_path": server_args.model_path,
        "served_model_name": ctx.model_name,
    }


def _tokenize(ctx: ServingContext, body: TokenizeRequest) -> dict[str, object]:
    ctx.check_model(body.model)
    tokenizer = ctx.engine.engine.tokenizer
    texts = [body.prompt] if isinstance(body.prompt, str) else body.prompt
    ids = [tokenizer.encode(t, add_special_tokens=body.add_special_tokens) for t in texts]
    one = isinstance(body.prompt, str)
    return {
        "tokens": ids[0] if one else ids,
        "count": len(ids[0]) if one else [len(i) for i in ids],
        "max_model_len": ctx.engine.engine.context_length,
    }


def _detokenize(ctx: ServingContext, body: DetokenizeRequest) -> dict[str, object]:
    ctx.check_model(body.model)
    tokenizer = ctx.engine.engine.tokenizer
    tokens: list[Any] = body.tokens
    one = not tokens or isinstance(tokens[0], int)
    lists: list[list[int]] = [tokens] if one else tokens
    vocab = tokenizer.vocab_size
    if any(not 0 <= t < vocab for ids in lists for t in ids):
        raise APIError(400, f"tokens must be token ids below {vocab}", param="tokens")
    texts = [tokenizer.decode(ids, skip_special_tokens=body.skip_special_tokens) for ids in lists]
    return {"text": texts[0] if one else texts}


def add_native_routes(app: FastAPI, ctx: ServingContext, server_args: ServerArgs) -> None:
    """Add the endpoints of the module docstring to *app*, served by *ctx*."""
    timeout = health_check_timeout()

    @app.get("/v1/models/{model:path}")
    async def retrieve_model(model: str) -> dict[str, Any]:
        ctx.check_model(model)
        return model_card(ctx, server_args)

    @app.get("/health_generate")
    async def health_generate() -> Response:
        return await _health_generate(ctx, timeout)

    @app.get("/ping")
    async def ping() -> Response:
        return Response(status_code=200)

    @app.get("/get_model_info")
    @app.get("/model_info")
    async def model_info() -> dict[str, object]:
        return {
            "model_path": server_args.model_path,
            "tokenizer_path": server_args.tokenizer_path or server_args.model_path,
            "is_generation": True,
            "preferred_sampling_params": None,
            "weight_version": "default",
        }

    @app.get("/get_server_info")
    @app.get("/server_info")
    async def server_info() -> dict[str, object]:
        return _server_info(ctx, server_args, await ctx.engine.get_server_info())

    @app.post("/tokenize")
    @app.post("/v1/tokenize")
    async def tokenize(request: Request) -> dict[str, object]:
        return _tokenize(ctx, await parse_body(request, TokenizeRequest))

    @app.post("/detokenize")
    @app.post("/v1/detokenize")
    async def detokenize(request: Request) -> dict[str, object]:
        return _detokenize(ctx, await parse_body(request, DetokenizeRequest))

    @app.post("/abort_request")
    async def abort_request(request: Request) -> Response:
        body = await parse_body(request, AbortRequestBody)
        if body.abort_all:
            ctx.engine.engine.abort_all()
        elif body.rid:
            ctx.engine.engine.abort(body.rid)
        else:
            raise APIError(400, "give the rid of the request to abort, or abort_all", param="rid")
        return Response(status_code=200)
