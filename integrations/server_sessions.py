"""OpenEnv's session server with officegym's session rules: idle sessions are reaped, each client is capped.

OpenEnv 0.3's ``HTTPEnvServer`` keeps a session until its WebSocket closes or a stateless ``POST /mcp``
``openenv/session/close`` names it, and reaps idle ones only if a timeout is configured (none by default, and
then not sooner than every 5 s); a session made by ``openenv/session/create`` and never closed, or a
WebSocket left open and silent, holds its slot for good, so 256 of them lock the server (issue 27).
``GuardedEnvServer`` subclasses it:

- **reaping**: every session idle ``idle_timeout`` seconds (no reset, step or MCP call; OpenEnv's own activity
  clock) is destroyed, its env closed; a WebSocket session's socket is closed with code 4408 and a reason
  that says so, and an HTTP session's id, used again, is answered "closed after ... s idle" (``reaped_notice``);
- **a cap per client**: one peer address holds at most ``max_sessions_per_client`` sessions, WebSocket and
  HTTP alike; one more is refused with OpenEnv's ``CAPACITY_REACHED`` and a message naming the option.

The peer and the socket of the request come from ``server_connections.CURRENT``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from typing import Any, Final

from .server_connections import CURRENT, REAPED_CLOSE_CODE, Connection
from .server_limits import ServerLimits

LOG = logging.getLogger("officegym.serve")
REMEMBERED_REAPED: Final = 4096
"""Reaped session ids kept to explain a later use (bounded: a client cannot grow it without limit)."""


def reaped_message(session_id: str, idle_timeout: float) -> str:
    return (
        f"Error: session {session_id[:40]} was closed after {idle_timeout:g} s idle (the server's --idle-timeout); "
        "open a new session"
    )


def guarded_server_class() -> type[Any]:
    """``GuardedEnvServer``, made on first use (OpenEnv is an optional extra)."""
    from openenv.core.env_server.exceptions import SessionCapacityError
    from openenv.core.env_server.http_server import HTTPEnvServer

    class GuardedEnvServer(HTTPEnvServer):  # type: ignore[misc]
        """``HTTPEnvServer`` with the reaper and the per-client cap of the module docstring."""

        def __init__(self, *args: Any, limits: ServerLimits, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.limits = limits
            self._session_idle_timeout_s = limits.idle_timeout
            self.client_cap = limits.session_cap(self._max_concurrent_envs)
            self.owners: dict[str, Connection] = {}
            self.pending: Counter[str] = Counter()
            self.reaped: OrderedDict[str, None] = OrderedDict()
            self.session_prefix = ""
            """Put before every session id this server makes: with ``serve --workers N`` it names the worker
            (``w3-...``), so a stateless ``POST /mcp`` call that lands on another worker is routed to it
            (``server_routing.py``). Empty in a single-process server, whose ids stay OpenEnv's."""

        def held_by(self, host: str) -> int:
            """Sessions the peer holds now, the ones being made included (forgets closed sessions)."""
            for session_id in [sid for sid in self.owners if sid not in self._sessions]:
                del self.owners[session_id]
            return self.pending[host] + sum(1 for owner in self.owners.values() if owner.host == host)

        async def _create_session(self) -> tuple[str, Any]:
            owner = CURRENT.get() or Connection("unknown")
            held = self.held_by(owner.host)  # the check and the reservation below run with no await between
            if held >= self.client_cap:
                message = (
                    f"Error: client {owner.host} holds {held} sessions, the most one client may "
                    f"(--max-sessions-per-client {self.client_cap}); close one or wait for idle ones to be reaped"
                )
                raise SessionCapacityError(held, self.client_cap, message)
            self.pending[owner.host] += 1
            try:
                session_id, env = await super()._create_session()
            finally:
                self.pending[owner.host] -= 1
            if self.session_prefix:
                session_id = await self.renamed(session_id, self.session_prefix + session_id)
            self.owners[session_id] = owner
            return session_id, env

        async def renamed(self, old: str, new: str) -> str:
            """Move a session made by OpenEnv from id ``old`` to ``new`` (every table OpenEnv keys by id, under
            its lock, before the id leaves this method: no request can have seen ``old``)."""
            async with self._session_lock:
                for table in (self._sessions, self._session_executors, self._session_stacks):
                    if old in table:
                        table[new] = table.pop(old)
                info = self._session_info.pop(old, None)
                if info is not None:
                    info.session_id = new
                    self._session_info[new] = info
            return new

        def reap_interval(self) -> float:
            """How often to look for idle sessions: a quarter of the timeout, between 10 ms and 5 s."""
            return min(max(self.limits.idle_timeout / 4, 0.01), 5.0)

        def idle_sessions(self, now: float) -> list[str]:
            timeout = self.limits.idle_timeout
            return [sid for sid, info in self._session_info.items() if now - info.last_activity_at > timeout]

        async def _reap_idle_sessions(self) -> None:
            """OpenEnv's reaper loop with the interval above, the socket closed, and the id remembered."""
            while True:
                try:
                    await asyncio.sleep(self.reap_interval())
                    for session_id in self.idle_sessions(time.time()):
                        await self.reap(session_id)
                except asyncio.CancelledError:
                    break
                except Exception as error:  # the reaper must survive one bad session
                    LOG.warning("idle-session reaper: %s (will retry)", type(error).__name__)

        async def reap(self, session_id: str) -> None:
            """Destroy one idle session (rechecked: a call may have come since), then close its socket."""
            info = self._session_info.get(session_id)
            if info is None or time.time() - info.last_activity_at <= self.limits.idle_timeout:
                return
            owner = self.owners.pop(session_id, None)
            self.reaped[session_id] = None
            while len(self.reaped) > REMEMBERED_REAPED:
                self.reaped.popitem(last=False)
            await self._destroy_session(session_id)
            if owner is not None:
                await owner.close(REAPED_CLOSE_CODE, reaped_message(session_id, self.limits.idle_timeout))

        def reaped_notice(self, session_id: str) -> str | None:
            """The message for a later use of a reaped session id (None: the id was never reaped)."""
            return reaped_message(session_id, self.limits.idle_timeout) if session_id in self.reaped else None

    return GuardedEnvServer


UNKNOWN_SESSION: Final = "Unknown session_id: "
"""How OpenEnv's ``/mcp`` handler answers an id it does not hold."""


class ReapedNotice:
    """ASGI middleware for ``POST /mcp``: OpenEnv's "Unknown session_id" for a session the reaper closed
    becomes ``reaped_message`` (the client learns why, and that a new session is the fix)."""

    def __init__(self, app: Any, server: Any) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") != "/mcp" or not self.server.reaped:
            await self.app(scope, receive, send)
            return
        held: list[Any] = []

        async def rewriting(message: Any) -> None:
            if message["type"] == "http.response.start":
                held.append(message)
                return
            if message["type"] == "http.response.body" and held:
                start, body = held.pop(), self.rewritten(message.get("body", b""))
                headers = [(k, v) for k, v in start["headers"] if k != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
                message = {**message, "body": body}
            await send(message)

        await self.app(scope, receive, rewriting)

    def rewritten(self, body: bytes) -> bytes:
        if UNKNOWN_SESSION.encode() not in body:
            return body
        import json

        reply = json.loads(body)
        error = reply.get("error") or {}
        session_id = str(error.get("message", "")).removeprefix(UNKNOWN_SESSION)
        notice = self.server.reaped_notice(session_id)
        if notice is None:
            return body
        error["message"] = notice
        return json.dumps(reply).encode()
