"""Every bad HTTP request gets a 4xx with a short message, and no log line repeats a client's value (issue 27).

OpenEnv's ``POST /reset`` lets the env's ``ValueError`` (an unknown ``task_id``, an unknown field) escape as a
500, whose traceback uvicorn logs with the whole offending value; its ``POST /step`` answers 422 with pydantic's
errors, each repeating its ``input``. Installed on the app: a 400 for the errors the env and the session raise
for bad input (``ValueError``, ``TypeError``, ``KeyError``, Gymnasium's errors), 4xx bodies without ``input``
values, and, innermost, ``ErrorShield``: any other exception is a 500 ``Error: internal error`` and one clipped
log line instead of a traceback that quotes the request. ``RpcErrorClip`` clips the JSON-RPC errors of
``POST /mcp``, which OpenEnv answers as 200s that repeat the client's value.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from .server_access import send_error
from .server_frames import CLIPPED_REPLY_CHARS, RPC_PREFIX, rpc_clipped, short_error
from .server_limits import clip_text

if TYPE_CHECKING:
    from fastapi import FastAPI

LOG = logging.getLogger("officegym.serve")


def bad_request_types() -> tuple[type[Exception], ...]:
    """What the session and the env raise for a client's bad input."""
    import gymnasium as gym

    return (ValueError, TypeError, KeyError, gym.error.Error)


def install_error_handlers(app: FastAPI) -> None:
    """The 4xx handlers of the module docstring, on ``app``."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    async def bad_request(request: Any, error: Exception) -> JSONResponse:
        text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        return JSONResponse({"detail": f"Error: {clip_text(text)}"}, status_code=400)

    async def invalid(request: Any, error: Exception) -> JSONResponse:
        errors = error.errors() if isinstance(error, RequestValidationError) else []
        return JSONResponse({"detail": [short_error(e) for e in errors[:10]]}, status_code=422)

    async def http_error(request: Any, error: Exception) -> JSONResponse:
        status, detail = getattr(error, "status_code", 400), getattr(error, "detail", "")
        short = [short_error(e) for e in detail[:10]] if isinstance(detail, list) else clip_text(str(detail))
        return JSONResponse({"detail": short}, status_code=status, headers=getattr(error, "headers", None))

    for kind in bad_request_types():
        app.add_exception_handler(kind, bad_request)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)


class ErrorShield:
    """ASGI middleware, innermost: an unexpected exception of an HTTP request is a 500 with a one-line log."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as error:  # the point: nothing unclipped reaches the log
            LOG.error(
                "%s %s failed: %s: %s",
                scope.get("method"),
                scope.get("path"),
                type(error).__name__,
                clip_text(str(error)),
            )
            if not started:
                await send_error(send, 500, "internal error (the server's log has one line on it)")


class RpcErrorClip:
    """ASGI middleware for ``POST /mcp``: a JSON-RPC error reply has its message clipped (``rpc_clipped``), since
    OpenEnv's handler repeats the client's method, pydantic's input or an exception's text in it (a request with a
    20 MB method name was answered with all of it). ``FrameGuard`` does the same for ``/mcp`` over WebSocket."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") != "/mcp":
            await self.app(scope, receive, send)
            return
        start: list[MutableMapping[str, Any]] = []
        body: list[bytes] = []

        async def clipping(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.append(message)
                return
            if message["type"] != "http.response.body" or not start:
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            whole = clipped_body(b"".join(body))
            head = start.pop()
            headers = [(k, v) for k, v in head.get("headers", []) if k.lower() != b"content-length"]
            await send({**head, "headers": [*headers, (b"content-length", str(len(whole)).encode())]})
            await send({"type": "http.response.body", "body": whole})

        await self.app(scope, receive, clipping)


def clipped_body(body: bytes) -> bytes:
    """``rpc_clipped`` of a response body (one that is not UTF-8 JSON-RPC is returned as it is)."""
    if len(body) <= CLIPPED_REPLY_CHARS or not body.startswith(RPC_PREFIX.encode()):
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    return rpc_clipped(text).encode("utf-8")
