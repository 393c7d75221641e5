"""Stateless ``POST /mcp`` sessions across ``officegym serve --workers N``: every call reaches the worker that
holds its session.

The workers share one port (``SO_REUSEPORT``), so the kernel hands each new TCP connection to any of them. A
WebSocket session lives on its connection and so stays on one worker by itself. A stateless HTTP session does
not: ``openenv/session/create`` is answered by one worker, and the next call naming that ``session_id`` may come
on another connection, to another worker, which would answer "Unknown session_id". So each worker puts its
name before the ids it makes (``w1-...``, ``GuardedEnvServer.session_prefix``), and:

- ``SessionRouter`` reads a ``POST /mcp`` body (after the token, ``Origin`` and body-size checks, so nothing
  unchecked is forwarded) and, when ``params.session_id`` names another worker, forwards the request to that
  worker's Unix socket and relays its answer; everything else goes on, unchanged, to this worker's app;
- ``ForwardedPeer`` (outermost) makes a forwarded request look like the original one to the worker that
  serves it: the peer address travels in ``x-officegym-peer``, which is believed only on the workers' own Unix
  sockets (in a directory only the server's user may open) and stripped from every TCP request, so no client
  can claim another address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any, Final

from .server_connections import peer_host

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

PEER_HEADER: Final = b"x-officegym-peer"
WORKER_HEADER: Final = b"x-officegym-worker"
"""Names the worker that answered an HTTP request (for clients and tests that want to see the spread)."""
SESSION_ID: Final = re.compile(r"\Aw(\d{1,4})-")
HOP_HEADERS: Final = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"content-length"})
"""Headers of one connection, not of the request: dropped when a request or an answer is relayed (``Host`` is
kept: the serving worker checks it as the first one did)."""


def worker_prefix(index: int) -> str:
    """The session-id prefix of worker ``index``."""
    return f"w{index}-"


def socket_path(directory: Path, index: int) -> Path:
    """Where worker ``index`` listens for requests forwarded by the other workers."""
    return directory / f"w{index}.sock"


def session_worker(body: bytes) -> int | None:
    """The worker named by the ``session_id`` of a JSON-RPC body (None: no such id, or not JSON-RPC)."""
    if b"session_id" not in body:
        return None
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    params = message.get("params") if isinstance(message, dict) else None
    session_id = params.get("session_id") if isinstance(params, dict) else None
    found = SESSION_ID.match(session_id) if isinstance(session_id, str) else None
    return int(found.group(1)) if found else None


class ForwardedPeer:
    """ASGI middleware, outermost: on a worker's Unix socket, the peer is the ``x-officegym-peer`` header the
        forwarding worker set; on TCP that header is dropped. Every HTTP answer and WebSocket handshake names the
    worker that served it (a relayed answer keeps the name of the worker that holds the session)."""

    def __init__(self, app: Any, index: int) -> None:
        self.app, self.index = app, index
        self.name = str(index).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = [(key, value) for key, value in scope.get("headers", []) if key != PEER_HEADER]
        claimed = [value for key, value in scope.get("headers", []) if key == PEER_HEADER]
        scope = {**scope, "headers": headers}
        if on_unix_socket(scope):
            scope["client"] = (claimed[0].decode("latin-1"), 0) if claimed else None

        async def naming(message: MutableMapping[str, Any]) -> None:
            headers = message.get("headers", [])
            starts = message["type"] in ("http.response.start", "websocket.accept")
            if starts and all(key != WORKER_HEADER for key, _ in headers):
                message = {**message, "headers": [*headers, (WORKER_HEADER, self.name)]}
            await send(message)

        await self.app(scope, receive, naming)


def on_unix_socket(scope: Scope) -> bool:
    """Whether the request came on a Unix socket (uvicorn gives its path as the server, with no port)."""
    server = scope.get("server")
    return isinstance(server, tuple | list) and len(server) == 2 and server[1] is None


class SessionRouter:
    """ASGI middleware: a ``POST /mcp`` naming another worker's session is forwarded there."""

    def __init__(self, app: Any, index: int, directory: Path) -> None:
        self.app, self.index, self.directory = app, index, directory
        self.clients: dict[int, Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != "/mcp":
            await self.app(scope, receive, send)
            return
        body, replay = await read_body(receive)
        target = session_worker(body)
        if target is None or target == self.index or not socket_path(self.directory, target).exists():
            await self.app(scope, replay, send)
            return
        await self.forward(scope, body, target, send)

    async def forward(self, scope: Scope, body: bytes, target: int, send: Send) -> None:
        """Send the request to worker ``target`` and relay its answer (a worker that is gone: 503)."""
        import httpx

        headers = [(key, value) for key, value in scope.get("headers", []) if key not in HOP_HEADERS]
        headers.append((PEER_HEADER, peer_host(scope).encode("latin-1")))
        try:
            answer = await self.client(target).post("/mcp", content=body, headers=headers)
        except httpx.HTTPError:
            message = f"worker {target}, which holds this session, is not answering; open a new session"
            await send_json(send, 503, {"detail": f"Error: {message}"})
            return
        kept = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items()]
        kept = [(key, value) for key, value in kept if key.lower() not in HOP_HEADERS]
        kept.append((b"content-length", str(len(answer.content)).encode()))
        await send({"type": "http.response.start", "status": answer.status_code, "headers": kept})
        await send({"type": "http.response.body", "body": answer.content})

    def client(self, target: int) -> Any:
        """One pooled HTTP client per other worker, over its Unix socket."""
        import httpx

        if target not in self.clients:
            transport = httpx.AsyncHTTPTransport(uds=str(socket_path(self.directory, target)))
            self.clients[target] = httpx.AsyncClient(transport=transport, base_url="http://worker", timeout=None)
        return self.clients[target]


async def read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body (``BodyLimit``, outside this middleware, has bounded its size and time), and a
    ``receive`` that hands it to the app again."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), _replay([message])
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    return body, _replay([{"type": "http.request", "body": body, "more_body": False}], then=receive)


def _replay(messages: list[MutableMapping[str, Any]], then: Receive | None = None) -> Receive:
    pending = list(messages)

    async def receive() -> MutableMapping[str, Any]:
        if pending:
            return pending.pop(0)
        if then is None:
            return {"type": "http.disconnect"}
        return await then()

    return receive


async def send_json(send: Send, status: int, payload: object) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
