"""One error shape for everything the HTTP server answers: ``{"error": {"type", "field", "message"}}``.

Errors raised by the tools (``TrulyMemError``), by FastAPI's own validation, by
routing (404, 405), by the limits in ``trulymem.server.limits`` (400, 413, 429,
503) and by the connection layer (a malformed request line) all come out in it;
an unexpected exception is a 500 in the same shape that names no internals.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from trulymem.errors import TrulyMemError

STATUS = {"invalid_input": 422, "not_found": 404, "conflict": 409, "forbidden": 403, "llm_error": 502, "config_error": 500,
          "store_error": 500, "schema_error": 500, "budget_exceeded": 503, "store_busy": 503}
RETRY = {"budget_exceeded", "store_busy"}  # answered with Retry-After: the same request may succeed soon
# what Starlette's own HTTP errors (routing, FastAPI's fallbacks) are called in the error shape
_TYPES = {400: "invalid_input", 404: "not_found", 405: "method_not_allowed", 413: "too_large",
          429: "rate_limited", 503: "unavailable"}
MAX_JSON_DEPTH = 64  # no request the API takes nests deeper; deeper bodies are refused before parsing finishes
MAX_NUMBER_DIGITS = 100  # longer numbers mean nothing to any tool, and very long ones cost quadratic time


class HTTPError(Exception):
    """An error answered as is: status, type, message, the field it is about, extra headers."""

    def __init__(self, status: int, type_: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.type, self.message, self.field = status, type_, message, field
        self.headers = headers


def error_body(type_: str, message: str, field: str | None = None) -> bytes:
    return json.dumps({"error": {"type": type_, "field": field, "message": message}}).encode()


def error_response(status: int, type_: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"type": type_, "field": field, "message": message}}, status_code=status,
                        headers=headers)


def retry_after(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds)))}


def tool_error(error: dict[str, Any]) -> HTTPError:
    """A tool's error result (``ToolResult.error``) as the HTTP error it answers."""
    type_ = str(error.get("type"))
    return HTTPError(STATUS.get(type_, 400), type_, str(error.get("message")), error.get("field"),
                     retry_after(1) if type_ in RETRY else None)


def answer(exc: HTTPError | TrulyMemError) -> JSONResponse:
    """The response to an error a route raised on purpose (the app's handlers and the fast
    path in ``trulymem.server.fastpath`` both answer with it)."""
    if isinstance(exc, TrulyMemError):
        exc = tool_error(exc.to_dict())
        return error_response(exc.status, exc.type, exc.message, exc.field, exc.headers)
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
    return error_response(exc.status, exc.type, exc.message, exc.field, {**headers, **(exc.headers or {})})


def install(app: FastAPI) -> None:
    """Route every kind of error through ``error_response``."""

    @app.exception_handler(HTTPError)
    async def _http_error(_: Request, exc: HTTPError) -> JSONResponse:
        return answer(exc)

    @app.exception_handler(TrulyMemError)
    async def _trulymem_error(_: Request, exc: TrulyMemError) -> JSONResponse:
        return answer(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in first.get("loc", ()) if p != "body" and not isinstance(p, int)) or "body"
        return error_response(422, "invalid_input", str(first.get("msg")), field)

    @app.exception_handler(StarletteHTTPException)
    async def _starlette(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = str(exc.detail)
        if exc.status_code == 404:
            message = f"no route {request.method} {request.url.path}"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return error_response(exc.status_code, _TYPES.get(exc.status_code, "error"), message,
                               headers=dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        # the traceback goes to the server log (Starlette re-raises after this answer); the client
        # learns nothing about internals or other users' data
        return error_response(500, "internal", "internal server error")


def parse_json(body: bytes) -> Any:
    """The request body as JSON, or ``HTTPError(400)`` naming what is wrong with it.

    Stricter than ``json.loads``: UTF-8 only (RFC 8259), no NaN/Infinity, numbers of at
    most ``MAX_NUMBER_DIGITS`` digits, at most ``MAX_JSON_DEPTH`` levels of nesting."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(f"is not UTF-8 text (invalid byte at offset {exc.start})") from None
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise _bad(f"is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise _bad(f"nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:
        raise _bad(str(exc)) from None
    if _depth_over(data, MAX_JSON_DEPTH):
        raise _bad(f"nests deeper than {MAX_JSON_DEPTH} levels")
    return data


def jsonrpc_refusal(body: bytes, problem: str) -> tuple[int, dict[str, Any]]:
    """``(status, JSON-RPC error)`` for an MCP message ``parse_json`` refused: answered to the
    request's own id when a lenient reading finds one (200, so the client's call ends with the
    error instead of waiting), else as the MCP SDK answers a body that is not JSON (400)."""
    try:
        data = json.loads(body, parse_int=lambda s: 0 if _long(s) else int(s), parse_constant=lambda _: None)
    except (ValueError, RecursionError):
        data = None
    rid = data.get("id") if isinstance(data, dict) else None
    if isinstance(rid, str | int) and not isinstance(rid, bool):
        return 200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"invalid_input: body {problem}"}}
    return 400, {"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32700, "message": f"Parse error: body {problem}"}}


def _bad(message: str) -> HTTPError:
    return HTTPError(400, "invalid_input", message, "body")


def _long(s: str) -> bool:
    return len(s) > MAX_NUMBER_DIGITS and sum(c.isdigit() for c in s) > MAX_NUMBER_DIGITS


def _int(s: str) -> int:
    if _long(s):
        raise ValueError(f"has a number over {MAX_NUMBER_DIGITS} digits long")
    return int(s)


def _float(s: str) -> float:
    if _long(s):
        raise ValueError(f"has a number over {MAX_NUMBER_DIGITS} digits long")
    f = float(s)
    if not math.isfinite(f):
        raise ValueError(f"has a number out of range ({s})")
    return f


def _constant(s: str) -> Any:
    raise ValueError(f"is not JSON: {s} is not a JSON value")


def _depth_over(data: Any, limit: int) -> bool:
    """Whether ``data`` nests more than ``limit`` containers deep (iterative: no recursion limit to hit)."""
    if not isinstance(data, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False
