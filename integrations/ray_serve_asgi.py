"""What a Ray Serve replica adds around the OpenEnv app of ``officegym serve`` (``ray_serve.py`` deploys it).

Three small pieces, none of which needs Ray, so they are tested without a cluster:

- ``ReplicaTag`` names the replica and its Ray node in two response headers (``x-officegym-replica``,
  ``x-officegym-node``) on every HTTP response and on the WebSocket handshake, so a client (and the tests) can
  see which replica of which machine holds its session;
- ``SessionKeyGate`` refuses HTTP ``/mcp`` requests without an ``x-session-id`` header when the deployment has
  more than one replica. OpenEnv's stateless HTTP MCP sessions (``openenv/session/create``, then calls naming
  the ``session_id``) live in one replica's memory, and Ray Serve routes each HTTP request on its own: only a
  key the client sends on every request of the session (Ray Serve's session-affinity header, which the
  deployment routes on by consistent hashing) brings them all to the replica that holds the session. A request
  without it would reach a random replica and fail there with "Unknown session_id", so it is refused at the
  door with the fix in the message. WebSocket sessions need no key: a connection is routed once.
- ``probe_health`` asks the app itself for ``GET /health`` in-process, through every middleware, which is what
  the replica's ``check_health`` runs: a replica whose app cannot answer is restarted by Ray Serve.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from .server_access import header, send_error

SESSION_KEY_HEADER: Final = "x-session-id"
"""Ray Serve's session-affinity header (its default; the cluster must not rename it with
``RAY_SERVE_SESSION_ID_HEADER_KEY``)."""
REPLICA_HEADER: Final = b"x-officegym-replica"
NODE_HEADER: Final = b"x-officegym-node"
HTTP_MCP_PATH: Final = "/mcp"
TAGGED_MESSAGES: Final = frozenset({"http.response.start", "websocket.accept"})


@dataclass(frozen=True)
class ReplicaIdentity:
    """Which replica this is (Ray Serve's replica id) and on which Ray node it runs."""

    replica: str
    node: str

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(REPLICA_HEADER, self.replica.encode("latin-1")), (NODE_HEADER, self.node.encode("latin-1"))]


class ReplicaTag:
    """ASGI middleware: adds the replica's identity headers to every response and WebSocket handshake."""

    def __init__(self, app: Any, identity: ReplicaIdentity) -> None:
        self.app, self.extra = app, identity.headers()

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def tagged(message: MutableMapping[str, Any]) -> None:
            if message["type"] in TAGGED_MESSAGES:
                message = {**message, "headers": [*message.get("headers", []), *self.extra]}
            await send(message)

        await self.app(scope, receive, tagged)


def session_key_problem(scope: MutableMapping[str, Any]) -> str | None:
    """Why an HTTP request cannot be served by one of several replicas (None: it can)."""
    if scope.get("path") != HTTP_MCP_PATH or header(scope, SESSION_KEY_HEADER.encode()):
        return None
    return (
        f"this server runs on several Ray Serve replicas, so HTTP /mcp needs a {SESSION_KEY_HEADER} header: send "
        "the same key of your choosing on every request of one session (it routes them all to one replica), "
        "or use the WebSocket /ws or /mcp"
    )


class SessionKeyGate:
    """ASGI middleware: HTTP ``/mcp`` without a session key is refused (400) before it reaches the app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        problem = session_key_problem(scope) if scope["type"] == "http" else None
        if problem is None:
            await self.app(scope, receive, send)
        else:
            await send_error(send, 400, problem)


HEALTH_SCOPE: Final[dict[str, Any]] = {
    "type": "http",
    "asgi": {"version": "3.0", "spec_version": "2.3"},
    "http_version": "1.1",
    "method": "GET",
    "scheme": "http",
    "path": "/health",
    "raw_path": b"/health",
    "root_path": "",
    "query_string": b"",
    "headers": [(b"host", b"127.0.0.1")],
    "client": ("127.0.0.1", 0),
    "server": ("127.0.0.1", 0),
}


async def probe_health(app: Any) -> None:
    """``GET /health`` through ``app`` in this process; raises ``RuntimeError`` unless it answers 200.
    No timeout here: Ray Serve fails a health check that takes longer than the deployment's
    ``health_check_timeout_s``, which also covers an app that hangs."""
    sent: list[MutableMapping[str, Any]] = []
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if requested:
            return {"type": "http.disconnect"}
        requested = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    try:
        await app({**HEALTH_SCOPE, "headers": list(HEALTH_SCOPE["headers"])}, receive, send)
    except Exception as error:
        raise RuntimeError(f"the officegym app failed GET /health: {type(error).__name__}: {error}") from error
    status = next((message["status"] for message in sent if message["type"] == "http.response.start"), None)
    if status != 200:
        raise RuntimeError(f"the officegym app answered GET /health with {status} (200 expected)")
