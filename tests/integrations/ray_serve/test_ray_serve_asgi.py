"""What a Ray Serve replica adds around the OpenEnv app, and ``deploy``'s checks, without a Ray cluster: the
health probe passes on the real app and fails on an app that cannot answer, the identity headers reach HTTP
responses and WebSocket handshakes, HTTP ``/mcp`` without a session key is refused, and bad options are one
clear error before Ray is touched. (The cluster itself: ``test_ray_serve_cluster.py``, in ``.venv-ray``.)"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the replicas run the OpenEnv app: pip install 'officegym[ray,openenv]'")

from officegym.integrations.openenv import create_app
from officegym.integrations.ray_serve import deploy, main
from officegym.integrations.ray_serve_asgi import (
    NODE_HEADER,
    REPLICA_HEADER,
    ReplicaIdentity,
    ReplicaTag,
    SessionKeyGate,
    probe_health,
)

INVOICE = "officegym/InvoiceApproval-v0"
IDENTITY = ReplicaIdentity(replica="replica-a", node="node-1")


def test_the_health_probe_passes_on_the_real_app() -> None:
    asyncio.run(probe_health(create_app(INVOICE)))


async def answers(status: int, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def raises(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    raise OSError("the database is gone")


async def silent(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    return None


@pytest.mark.parametrize(
    "app, message",
    [
        (lambda scope, receive, send: answers(503, scope, receive, send), "answered GET /health with 503"),
        (raises, "failed GET /health: OSError: the database is gone"),
        (silent, "answered GET /health with None"),
    ],
)
def test_the_health_probe_fails_when_the_app_cannot_answer(app: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        asyncio.run(probe_health(app))


def call(app: Any, scope: dict[str, Any]) -> list[MutableMapping[str, Any]]:
    """Run one ASGI connection with no body and return what the app sent."""
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def test_the_identity_headers_reach_http_responses_and_websocket_handshakes() -> None:
    async def accepts(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "websocket.accept", "headers": [(b"x-own", b"1")]})

    expected = [(REPLICA_HEADER, b"replica-a"), (NODE_HEADER, b"node-1")]
    tagged_http = call(ReplicaTag(lambda s, r, w: answers(200, s, r, w), IDENTITY), {"type": "http"})
    assert tagged_http[0]["headers"] == expected and "headers" not in tagged_http[1]
    tagged_ws = call(ReplicaTag(accepts, IDENTITY), {"type": "websocket"})
    assert tagged_ws[0]["headers"] == [(b"x-own", b"1"), *expected]


def test_http_mcp_without_a_session_key_is_refused_and_never_reaches_the_app() -> None:
    reached: list[str] = []

    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await answers(200, scope, receive, send)

    gate = SessionKeyGate(app)
    refused = call(gate, {"type": "http", "path": "/mcp", "headers": []})
    assert refused[0]["status"] == 400 and b"x-session-id header" in refused[1]["body"]
    assert reached == []
    keyed = call(gate, {"type": "http", "path": "/mcp", "headers": [(b"x-session-id", b"k")]})
    other = call(gate, {"type": "http", "path": "/health", "headers": []})
    assert keyed[0]["status"] == other[0]["status"] == 200 and reached == ["/mcp", "/health"]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"replicas": 0}, "replicas must be a whole number of at least 1"),
        ({"replicas": True}, "replicas must be a whole number"),
        ({"port": 0}, "port must be between 1 and 65535"),
        ({"replica_cpus": -1}, "replica_cpus must be a number of CPUs of at least 0"),
        ({"max_replicas_per_node": 0}, "max_replicas_per_node must be None or at least 1"),
        ({"proxy_location": "Somewhere"}, "proxy_location must be one of EveryNode, HeadOnly"),
        ({"max_sessions": 0}, "max_sessions must be at least 1"),
        ({"host": "0.0.0.0"}, "serves beyond loopback, so it needs a token"),
        ({"env_kwargs": {"no_such_option": 1}}, "no_such_option"),
    ],
)
def test_bad_options_are_refused_before_ray_is_touched(
    options: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OFFICEGYM_SERVE_TOKEN", raising=False)
    monkeypatch.setattr("officegym.integrations.ray_serve.require_serve", pytest.fail)
    with pytest.raises((ValueError, TypeError), match=message):
        deploy(INVOICE, **options)


def test_the_command_says_error_and_exits_2_on_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["officegym/NoSuchEnv-v0", "--replicas", "2"]) == 2
    assert main([INVOICE, "--replicas", "0"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("Error: unknown env id 'officegym/NoSuchEnv-v0'")
    assert lines[1].startswith("Error: replicas must be a whole number of at least 1")


def test_a_replicas_health_check_fails_once_its_app_cannot_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """``OfficeGymReplica`` (Ray's replica context stubbed): healthy with its app, failing once the app raises;
    with several replicas the app it serves is behind the session-key gate."""
    from officegym.integrations import ray_serve_replica
    from officegym.integrations.server_limits import ServerLimits

    monkeypatch.setattr(ray_serve_replica, "current_identity", lambda: IDENTITY)
    replica = ray_serve_replica.OfficeGymReplica(INVOICE, None, ServerLimits(), 8, several_replicas=True)
    asyncio.run(replica.check_health())
    assert isinstance(replica.__serve_build_asgi_app__(), SessionKeyGate)
    assert replica.whoami() == {"replica": "replica-a", "node": "node-1"}
    monkeypatch.setattr(replica, "openenv_app", raises)
    with pytest.raises(RuntimeError, match="failed GET /health"):
        asyncio.run(replica.check_health())
    alone = ray_serve_replica.OfficeGymReplica(INVOICE, None, ServerLimits(), 8, several_replicas=False)
    assert isinstance(alone.__serve_build_asgi_app__(), ReplicaTag)
