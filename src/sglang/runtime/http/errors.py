"""Errors in the OpenAI shape: :class:`APIError` and :func:`install_error_handlers`.

Every error a server built on these pieces returns has the body OpenAI's
API (and its client library) expects::

    {"error": {"message": "...", "type": "invalid_request_error", "param": "n", "code": null}}
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

__all__ = ["APIError", "error_body", "error_response", "install_error_handlers", "parse_body"]

M = TypeVar("M", bound=BaseModel)

_log = logging.getLogger(__name__)

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
"""The OpenAI ``type`` of a status code; the rest are ``server_error`` (5xx) or ``api_error``."""


def _type_of(status: int) -> str:
    return _TYPES.get(status, "server_error" if status >= 500 else "api_error")


class APIError(Exception):
    """An error to answer with *status* and the OpenAI error body.

    Args:
        status: The HTTP status code.
        message: What went wrong and how to fix it.
        param: The request field at fault, if one is.
        code: A machine-readable code (``"model_not_found"``, ...), if any.
        type: The OpenAI error type (default: from *status*).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.type = type or _type_of(status)


def error_body(
    message: str, type: str, param: str | None = None, code: str | None = None
) -> dict[str, dict[str, str | None]]:
    """The OpenAI error body ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def error_response(error: APIError) -> JSONResponse:
    """The JSON response for *error*."""
    body = error_body(error.message, error.type, error.param, error.code)
    return JSONResponse(body, status_code=error.status)


def _validation_error(errors: Iterable[Mapping[str, Any]]) -> APIError:
    problems = []
    param = None
    for item in errors:
        loc = [str(part) for part in item.get("loc", ()) if part != "body"]
        where = ".".join(loc)
        param = param or where or None
        problems.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
    message = "; ".join(problems) or "the request is not valid"
    return APIError(400, f"invalid request: {message}", param=param)


async def parse_body(request: Request, model: type[M]) -> M:
    """Read *request*'s body as JSON into *model* (whatever its content type says).

    Raises:
        APIError: ``400``: the body is not JSON, or a field is missing or bad
            (the message and ``param`` name it).
    """
    try:
        return model.model_validate_json(await request.body())
    except ValidationError as exc:
        raise _validation_error(exc.errors()) from None


async def _on_api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, APIError)
    return error_response(exc)


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(_validation_error(exc.errors()))


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    try:
        phrase = HTTPStatus(exc.status_code).phrase
    except ValueError:
        phrase = "error"
    message = exc.detail if isinstance(exc.detail, str) else phrase
    response = error_response(APIError(exc.status_code, f"{message}: {request.url.path}"))
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    _log.exception("unexpected error serving %s", request.url.path)
    message = f"internal server error: {type(exc).__name__}: {exc}"
    return error_response(APIError(500, message))


def install_error_handlers(app: FastAPI) -> None:
    """Answer :class:`APIError`, validation failures, HTTP errors and crashes in the OpenAI shape.

    Malformed JSON and fields that fail validation become ``400
    invalid_request_error`` naming the field (``param``); unknown paths
    ``404``; anything unexpected ``500`` (and is logged with its traceback).
    """
    app.add_exception_handler(APIError, _on_api_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(HTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected_error)
