"""Who is asking: the peer of the request being served, and a handle on its WebSocket, for the session server.

OpenEnv makes a session in ``HTTPEnvServer._create_session()``, which is told nothing of the request. The
session server (``server_sessions.py``) needs two things of it: the peer address (sessions per client are
capped by it) and, for a WebSocket session, a way to close the socket when the session is reaped (otherwise
the socket of a reaped session would stay open, holding an env that is closed). ``FrameGuard``
(``server_frames.py``) sets ``CURRENT`` around every WebSocket connection and ``PeerContext`` around every
HTTP request; both run as ASGI middleware in the same task as OpenEnv's handler, so the handler sees them.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final

Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
REAPED_CLOSE_CODE: Final = 4408
"""WebSocket close code of a reaped session (the application range 4000-4999; 408 as in HTTP's timeout)."""


@dataclass
class Connection:
    """One request's peer; for a WebSocket, also the socket's ``send``, so the server can close it."""

    host: str
    send: Send | None = None
    closed: bool = field(default=False)

    async def close(self, code: int, reason: str) -> None:
        """Close the WebSocket (once) with ``code`` and a reason the client library shows; what the app sends
        after that is dropped by ``FrameGuard``."""
        if self.send is None or self.closed:
            return
        self.closed = True
        await self.send({"type": "websocket.close", "code": code, "reason": reason[:120]})


CURRENT: contextvars.ContextVar[Connection | None] = contextvars.ContextVar("officegym_connection", default=None)


def peer_host(scope: MutableMapping[str, Any]) -> str:
    """The peer's address as the server saw it (``"unknown"`` for a transport that does not say)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class PeerContext:
    """ASGI middleware: every HTTP request runs with its peer in ``CURRENT`` (sessions that stateless
    ``POST /mcp`` ``openenv/session/create`` makes count against that peer)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = CURRENT.set(Connection(peer_host(scope)))
        try:
            await self.app(scope, receive, send)
        finally:
            CURRENT.reset(token)
