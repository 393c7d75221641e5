"""Issue 27, the server: every bad request gets a short message. OpenEnv's ``/mcp`` handler answers a bad
JSON-RPC request with an error that repeats the client's value ("Method not found: METHOD", "Invalid request:"
with pydantic's errors): a 20 MB method name came back whole. Now a JSON-RPC error's message is clipped on
``POST /mcp`` and on the ``/mcp`` WebSocket alike. The server here accepts 32 MiB bodies (and a byte budget to
match), so the 20 MB value reaches OpenEnv's handler instead of being refused at the door."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from officegym.integrations.server_limits import ServerLimits

from .conftest import HANG_GUARD
from .server_clients import http, raw_ws

ENV_ID = "officegym/InvoiceApproval-v0"
HUGE = "A" * 20_000_000
HALF = "A" * 10_000_000
LIMITS = ServerLimits(max_body_bytes=32 * 1024 * 1024, client_bytes_per_s=64 * 1024 * 1024)
SHORT = 2048


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID, limits=LIMITS) as base:
        yield base


BAD_REQUESTS = {
    "method": ({"jsonrpc": "2.0", "method": HUGE, "params": {}, "id": 1}, "Method not found: AAAA"),
    "jsonrpc": ({"jsonrpc": HUGE, "method": "tools/list", "params": {}, "id": 1}, "Invalid request"),
    "id": ({"jsonrpc": "2.0", "method": HALF, "params": {}, "id": HALF}, "Method not found: AAAA"),
}
"""Each with what its error message says (a 20 MB method name, a 20 MB ``jsonrpc``, 10 MB in both the method
and the id, which a reply repeats)."""


@pytest.mark.parametrize("name", sorted(BAD_REQUESTS))
def test_a_20_mb_value_in_a_post_to_mcp_is_not_echoed_back(
    url: str, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    body, says = BAD_REQUESTS[name]
    with caplog.at_level(logging.DEBUG), http(url) as client:
        answer = client.post("/mcp", content=json.dumps(body), headers={"content-type": "application/json"})
    assert answer.status_code == 200 and len(answer.content) < SHORT, answer.content[:300]
    error = answer.json()["error"]
    assert error["message"].startswith(says) and len(error["message"]) < 1000, error
    assert int(answer.headers["content-length"]) == len(answer.content)
    assert all(len(record.getMessage()) < 1000 for record in caplog.records)


def test_a_20_mb_value_on_the_mcp_websocket_is_not_echoed_back(url: str) -> None:
    with raw_ws(url, "/mcp", max_size=None) as ws:
        ws.send(json.dumps({"jsonrpc": "2.0", "method": HUGE, "params": {}, "id": 7}))
        reply = ws.recv(timeout=HANG_GUARD)
        assert len(reply) < SHORT, reply[:300]
        assert json.loads(reply)["error"]["message"].startswith("Method not found: AAAA")
        ws.send(json.dumps({"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 8}))
        tools = json.loads(ws.recv(timeout=HANG_GUARD))  # the session goes on
    assert tools["id"] == 8 and any(tool["name"] == "finish" for tool in tools["result"]["tools"])


def test_a_good_reply_is_never_clipped(url: str) -> None:
    with http(url) as client:
        answer = client.post("/mcp", json={"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": 1})
    assert len(answer.content) > SHORT and "error" not in answer.json()
