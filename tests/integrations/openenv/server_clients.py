"""Plain clients for the server-hardening tests: raw WebSocket frames and raw HTTP, so a test can send what
OpenEnv's clients never would (binary frames, ``null``, unfinished headers) and see exactly what comes back."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from .conftest import HANG_GUARD


def ws_url(base: str, path: str = "/ws") -> str:
    return base.replace("http://", "ws://", 1) + path


@contextmanager
def raw_ws(base: str, path: str = "/ws", **options: Any) -> Iterator[ClientConnection]:
    """A WebSocket to ``base`` + ``path``; ``options`` go to ``websockets.sync.client.connect``."""
    with connect(ws_url(base, path), open_timeout=HANG_GUARD, close_timeout=HANG_GUARD, **options) as ws:
        yield ws


def ask(ws: ClientConnection, message: Any) -> dict[str, Any]:
    """Send one frame (a dict is sent as JSON text, ``str``/``bytes`` as they are) and read the reply."""
    ws.send(json.dumps(message) if isinstance(message, dict) else message)
    reply: dict[str, Any] = json.loads(ws.recv(timeout=HANG_GUARD))
    return reply


def reset(ws: ClientConnection, task_id: str, seed: int = 0) -> dict[str, Any]:
    return ask(ws, {"type": "reset", "data": {"task_id": task_id, "seed": seed}})


def step(ws: ClientConnection, call: dict[str, Any]) -> dict[str, Any]:
    return ask(ws, {"type": "step", "data": call})


def text_of(reply: dict[str, Any]) -> str:
    """The observation text of an OpenEnv observation reply (fails loudly on an error reply)."""
    assert reply["type"] == "observation", reply
    text: str = reply["data"]["observation"]["text"]
    return text


def http(base: str, **options: Any) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=HANG_GUARD, **options)


def mcp(client: httpx.Client, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """One JSON-RPC call on ``POST /mcp``."""
    body = {"jsonrpc": "2.0", "method": method, "params": params or {}, "id": 1}
    answer: dict[str, Any] = client.post("/mcp", json=body).json()
    return answer


def host_port(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def open_socket(base: str) -> socket.socket:
    """A plain TCP connection to the server (for unfinished requests)."""
    sock = socket.create_connection(host_port(base), timeout=HANG_GUARD)
    return sock
