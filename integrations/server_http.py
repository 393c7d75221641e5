"""uvicorn's settings for ``officegym serve``, and the header-read timeout uvicorn lacks (issue 27).

uvicorn 0.x has no limit on how long a connection may take to send its request headers: its keep-alive timer
stops at the first byte, so a client that sends one header byte at a time (or half a request line and
nothing more) holds its connection for good, and 300 of them stay open. ``header_timeout_protocol`` is
uvicorn's own h11 protocol with one timer more: from the moment a connection opens, and again after each
response, the client has ``header_timeout`` seconds to complete the next request's headers, or the connection
is closed. A request whose headers arrived is never cut off by it (a long reset, an open WebSocket).

``uvicorn_options`` gathers the rest: the WebSocket message limit (uvicorn closes with 1009 before reading a
larger message), the largest request head h11 buffers, and how many connections and tasks are served at once
(more get 503 instead of queueing on the event loop).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from .server_limits import ServerLimits

MAX_HEAD_BYTES: Final = 64 * 1024
"""Request line + headers: OpenEnv's clients send well under 1 KiB."""
SPARE_CONNECTIONS: Final = 256
"""Connections served beyond one per session: HTTP requests, slow clients waiting out their header timeout."""
KEEP_ALIVE_S: Final = 5


def header_timeout_protocol(header_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's ``H11Protocol`` that closes a connection whose request headers do not arrive in time."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutProtocol(H11Protocol):
        """``H11Protocol`` plus a header deadline (see the module docstring)."""

        _header_timer: asyncio.TimerHandle | None = None
        _armed_scope: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            """Start the deadline for the next request's headers: they are in when ``scope`` is a new one."""
            self._disarm()
            if not self.transport.is_closing():
                self._armed_scope = self.scope
                self._header_timer = self.loop.call_later(header_timeout, self._headers_overdue)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_overdue(self) -> None:
            self._header_timer = None
            if self.scope is self._armed_scope and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol


def uvicorn_options(limits: ServerLimits, max_sessions: int) -> dict[str, Any]:
    """The ``uvicorn.Config`` keyword arguments that bound what a client can hold or send."""
    return {
        "http": header_timeout_protocol(limits.header_timeout),
        "ws_max_size": limits.max_body_bytes,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "limit_concurrency": max_sessions + SPARE_CONNECTIONS,
        "timeout_keep_alive": KEEP_ALIVE_S,
    }
