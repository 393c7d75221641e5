"""A bad WebSocket frame gets an error reply, and the session and its episode go on (issue 27).

OpenEnv 0.3's handlers for ``/ws`` and ``/mcp`` read a frame with ``receive_text`` and then call ``.get`` on the
decoded JSON: a binary frame, JSON that is not an object (``null``, ``5``, ``[]``) or JSON nested deeper than
Python's parser recurses raise outside their error handling, which closes the session and its env. This ASGI
middleware reads every incoming frame first and answers those itself, in the protocol of the endpoint (an
OpenEnv error message on ``/ws``, a JSON-RPC error on ``/mcp``), without passing them on; every other frame
reaches OpenEnv unchanged (invalid JSON too: OpenEnv answers that one itself and goes on). Frames larger than
``--max-body-bytes`` never get here: uvicorn closes the connection with 1009 before reading them.

It also clips what goes back: an OpenEnv error reply (and a JSON-RPC error on ``/mcp``) repeats the exception
text or pydantic's errors with the offending input, which may be a megabyte of the client's own frame.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import MutableMapping
from typing import Any, Final

from .server_connections import CURRENT, Connection, peer_host
from .server_limits import clip_text

ERROR_PREFIX: Final = '{"type":"error"'
"""How OpenEnv's ``WSErrorResponse.model_dump_json()`` starts (its error replies on ``/ws``)."""
RPC_PREFIX: Final = '{"jsonrpc"'
"""How a JSON-RPC reply starts (OpenEnv's on ``/mcp``): only these and the error replies above are clipped."""
CLIPPED_REPLY_CHARS: Final = 2048
SAFE_BRACKETS: Final = 400
"""A frame with fewer ``{`` and ``[`` than this cannot nest deep enough to exhaust Python's recursion limit (1000
frames, the server's own stack included), so it need not be parsed here: ``str.count`` of a megabyte takes a
tenth of a millisecond, its parse several milliseconds of the event loop every session shares."""


LONG_DIGITS: Final = re.compile(rf"\d{{{sys.get_int_max_str_digits() or 4300}}}")
"""A run of more digits than Python converts to an int: ``json.loads`` of such a number raises a ``ValueError``
that is not a ``JSONDecodeError``, which OpenEnv's handler does not catch (it ends the session). Only a frame
with such a run is parsed here; a run inside a string value parses and passes."""


def frame_problem(message: MutableMapping[str, Any]) -> str | None:
    """Why OpenEnv's handler would end the session on this ``websocket.receive`` message, or None."""
    text = message.get("text")
    if text is None:
        return "binary frames are not part of the protocol; send the message as a JSON text frame"
    if LONG_DIGITS.search(text):
        return _number_problem(text)
    if text.lstrip()[:1] == "{" and text.count("{") + text.count("[") < SAFE_BRACKETS:
        return None  # an object (or invalid JSON, which OpenEnv answers) too shallow to recurse: not parsed twice
    try:
        value = json.loads(text)
    except RecursionError:
        return "the message is nested too deeply; send a JSON object of ordinary depth"
    except ValueError:
        return None  # OpenEnv answers invalid JSON itself and keeps the session
    if not isinstance(value, dict):
        return f'a message must be a JSON object, got {type(value).__name__}; send {{"type": ..., "data": ...}}'
    return None


def _number_problem(text: str) -> str | None:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return None  # OpenEnv answers invalid JSON itself and keeps the session
    except RecursionError:
        return "the message is nested too deeply; send a JSON object of ordinary depth"
    except ValueError:
        return "a number in the message has too many digits; send numbers of ordinary size"
    return None


def error_reply(path: str, problem: str) -> str:
    """The error in the endpoint's protocol: JSON-RPC on ``/mcp``, OpenEnv's error message on ``/ws``."""
    message = f"Error: {problem}"
    if path.rstrip("/").endswith("/mcp"):
        return json.dumps({"jsonrpc": "2.0", "error": {"code": -32600, "message": message}, "id": None})
    return json.dumps({"type": "error", "data": {"message": message, "code": "INVALID_JSON"}})


def clipped(text: str) -> str:
    """An OpenEnv error reply with its message clipped and pydantic's ``input`` values dropped; a JSON-RPC
    error reply (``/mcp``) with its message and data clipped (``rpc_clipped``)."""
    if len(text) <= CLIPPED_REPLY_CHARS:
        return text
    if text.startswith(RPC_PREFIX):
        return rpc_clipped(text)
    if not text.startswith(ERROR_PREFIX):
        return text
    reply = json.loads(text)
    data = reply.get("data", {})
    if isinstance(data.get("message"), str):
        data["message"] = clip_text(data["message"])
    if isinstance(data.get("errors"), list):
        data["errors"] = [short_error(error) for error in data["errors"][:10]]
    return json.dumps(reply)


def rpc_clipped(text: str) -> str:
    """A JSON-RPC reply whose ``error`` repeats the client's value (OpenEnv's ``/mcp`` handler answers "Method not
    found: METHOD", "Invalid request: " with pydantic's errors and their input, ``str`` of exceptions): its
    message clipped, its ``data`` kept only if short. Any other reply (a result) is returned as it is."""
    try:
        reply = json.loads(text)
    except ValueError:
        return text
    error = reply.get("error") if isinstance(reply, dict) else None
    if not isinstance(error, dict):
        return text
    if isinstance(error.get("message"), str):
        error["message"] = clip_text(error["message"])
    if "data" in error and len(json.dumps(error["data"])) > CLIPPED_REPLY_CHARS:
        error["data"] = None
    if isinstance(reply.get("id"), str):
        reply["id"] = clip_text(reply["id"], 80)
    return json.dumps(reply)


def short_error(error: Any) -> Any:
    """One pydantic error without the value it was about (``input``, ``ctx``, ``url``), its text clipped."""
    if not isinstance(error, dict):
        return clip_text(str(error))
    return {
        "loc": [clip_text(str(part), 80) for part in error.get("loc", [])][:8],
        "msg": clip_text(str(error.get("msg", ""))),
        "type": error.get("type"),
    }


class FrameGuard:
    """ASGI middleware for WebSocket scopes: screens incoming frames (``frame_problem``), clips error replies,
    and registers the connection in ``CURRENT`` so a reaped session can be closed (``server_sessions.py``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        connection = Connection(peer_host(scope))

        async def guarded_send(message: MutableMapping[str, Any]) -> None:
            if connection.closed:
                return  # the server closed this socket (a reaped session): the app's late sends go nowhere
            if message["type"] == "websocket.send" and isinstance(message.get("text"), str):
                message = {**message, "text": clipped(message["text"])}
            await send(message)

        async def guarded_receive() -> MutableMapping[str, Any]:
            while True:
                message: MutableMapping[str, Any] = await receive()
                problem = frame_problem(message) if message["type"] == "websocket.receive" else None
                if problem is None:
                    return message
                await guarded_send({"type": "websocket.send", "text": error_reply(scope["path"], problem)})

        connection.send = send
        token = CURRENT.set(connection)
        try:
            await self.app(scope, guarded_receive, guarded_send)
        finally:
            CURRENT.reset(token)
