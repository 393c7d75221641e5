"""HTTP bodies are at most ``--max-body-bytes``, refused (413) before anything parses them (issue 27).

OpenEnv reads whole bodies and parses them as JSON on the event loop every session shares, so one large body
holds up every other session, and its value then reaches error messages and logs. A declared
``Content-Length`` over the limit is refused at once, unread; a body without one (chunked) is read up to the
limit and refused as soon as it passes it. A body within the limit is handed to the app as it came.

A body must also arrive within ``timeout`` seconds (``--header-timeout``, the bound on the request's head): a
client that sends its headers and then trickles its body would otherwise hold a connection for as long as it
likes. It gets a 408 and the connection ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from .server_access import header, send_error


class BodyLimit:
    """ASGI middleware for HTTP scopes: at most ``limit`` bytes of request body, within ``timeout`` seconds."""

    def __init__(self, app: Any, limit: int, timeout: float | None = None) -> None:
        self.app, self.limit, self.timeout = app, limit, timeout

    def too_large(self, size: int) -> str:
        return f"request body of {size} bytes is over the server's limit of {self.limit}; see --max-body-bytes"

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.limit:
            await send_error(send, 413, self.too_large(int(declared)))
            return
        try:
            async with asyncio.timeout(self.timeout):
                messages, size = await self.read(receive)
        except TimeoutError:
            late = f"request body not received within {self.timeout:g} s; see --header-timeout"
            await send_error(send, 408, late)
            return
        if size > self.limit:
            await send_error(send, 413, self.too_large(size))
            return
        await self.app(scope, replay(messages, receive), send)

    async def read(self, receive: Any) -> tuple[list[MutableMapping[str, Any]], int]:
        """The body's messages and size, read until its end or until it passes the limit."""
        messages: list[MutableMapping[str, Any]] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return messages, size
            size += len(message.get("body", b""))
            if size > self.limit or not message.get("more_body", False):
                return messages, size


def replay(messages: list[MutableMapping[str, Any]], receive: Any) -> Any:
    """A ``receive`` that gives the buffered messages first, then the connection's own (a disconnect)."""
    pending = list(messages)

    async def replayed() -> MutableMapping[str, Any]:
        if pending:
            return pending.pop(0)
        message: MutableMapping[str, Any] = await receive()
        return message

    return replayed
