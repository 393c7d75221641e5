"""Who may use the server: the token, the ``Origin`` check and loopback-only service without a token (issue 27).

A WebSocket is not bound by the browser's same-origin policy: any web page the user opens could connect to
``ws://127.0.0.1:8000/ws`` and play (or exhaust) the server. Browsers say who is asking in ``Origin``, and
programs (OpenEnv's clients, ``curl``, a trainer) send none, so:

- a request with an ``Origin`` is served only if that origin is on loopback or is the server's own (its host
  equals the request's ``Host``); ``Origin: null`` (a sandboxed page, a file) is refused too;
- without a token, only loopback peers are served and the ``Host`` must name loopback (a page on a name that
  resolves to 127.0.0.1, DNS rebinding, would otherwise be "the server's own" origin);
- with a token, every request but ``GET /health`` carries ``Authorization: Bearer TOKEN`` (compared in
  constant time). A browser cannot add that header to a WebSocket, so the token also keeps pages out.

Refusals: HTTP 401/403 with a one-line ``{"detail": "Error: ..."}``; a WebSocket is closed before it is
accepted (the client sees HTTP 403).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import MutableMapping
from typing import Any, Final
from urllib.parse import urlsplit

from .server_connections import peer_host
from .server_limits import TOKEN_VARIABLE, clip, is_loopback

OPEN_PATHS: Final = frozenset({"/health"})
"""Paths served to anyone (a load balancer's or a container's health probe sends no token)."""


def header(scope: MutableMapping[str, Any], name: bytes) -> str | None:
    """The first value of a request header, decoded as Latin-1 (as HTTP defines header bytes)."""
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def host_name(netloc: str) -> str:
    """The host part of ``host[:port]`` or ``[v6]:port``."""
    return urlsplit(f"//{netloc}").hostname or ""


def origin_problem(scope: MutableMapping[str, Any]) -> str | None:
    """Why a browser origin is refused (None: no origin, or an allowed one)."""
    origin = header(scope, b"origin")
    if origin is None:
        return None
    parts = urlsplit(origin)
    if parts.scheme in ("http", "https") and parts.hostname and is_loopback(parts.hostname):
        return None
    if parts.netloc and parts.netloc.lower() == (header(scope, b"host") or "").lower():
        return None
    return f"origin {clip(origin)} may not use this server (only loopback pages and the server's own may)"


def token_problem(scope: MutableMapping[str, Any], token: str) -> str | None:
    """Why the request's credentials are refused (None: the right bearer token)."""
    sent = header(scope, b"authorization") or ""
    scheme, _, value = sent.partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode()):
        return None
    what = "no Authorization header" if not sent else "a wrong token"
    return f"{what}; send Authorization: Bearer TOKEN (the server's --token or {TOKEN_VARIABLE})"


def loopback_problem(scope: MutableMapping[str, Any]) -> str | None:
    """Why a tokenless server refuses the request: a peer or a ``Host`` beyond loopback."""
    peer = peer_host(scope)
    if not is_loopback(peer):
        return f"this server has no token and serves loopback only (peer {clip(peer)}); restart it with --token"
    host = header(scope, b"host")
    if host is not None and not is_loopback(host_name(host)):
        return f"Host {clip(host)} is not loopback; a server without --token answers only loopback names"
    return None


class AccessGuard:
    """ASGI middleware: refuses what the module docstring lists before anything else runs."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    def problem(self, scope: MutableMapping[str, Any]) -> tuple[int, str] | None:
        """The refusal (HTTP status, message) for this request, or None to serve it."""
        if scope.get("path") in OPEN_PATHS and scope.get("method", "GET") == "GET":
            return None
        found = origin_problem(scope)
        if found is not None:
            return 403, found
        if self.token is None:
            found = loopback_problem(scope)
            return None if found is None else (403, found)
        found = token_problem(scope, self.token)
        return None if found is None else (401, found)

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.problem(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": refusal[1][:120]})
        else:
            await send_error(send, refusal[0], refusal[1])


async def send_error(send: Any, status: int, problem: str) -> None:
    """A JSON error response ``{"detail": "Error: ..."}`` (FastAPI's shape for errors)."""
    body = json.dumps({"detail": f"Error: {problem}"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    if status in (408, 413):  # the rest of the body was never read: the connection cannot carry another request
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
