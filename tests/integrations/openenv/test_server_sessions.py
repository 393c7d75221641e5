"""Issue 27, the server: 256 stateless ``POST /mcp`` ``openenv/session/create`` requests, or 255 idle
WebSockets, filled every session slot for good (no idle timeout, no cap per client), and every later client got
``CAPACITY_REACHED``. Now one peer address holds at most ``--max-sessions-per-client`` sessions (HTTP and
WebSocket alike; another address is still served), idle sessions are reaped after ``--idle-timeout`` seconds,
and a reaped session's later use gets a clear error. Times here are lower bounds only: a session is never
reaped sooner than its timeout; how much later is not asserted."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from websockets.exceptions import ConnectionClosed

from officegym.integrations.server_limits import ServerLimits

from .conftest import HANG_GUARD, one_task_per_tier
from .server_clients import http, mcp, raw_ws, reset, step, text_of

ENV_ID = "officegym/VendorReview-v0"
CAP = 3
IDLE_S = 1.0


def wait_until(condition: object, what: str) -> None:
    """Poll ``condition()`` until true (a hang guard, not a speed check)."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def capped() -> Iterator[str]:
    """A server with room for 8 sessions, 3 per client, and a timeout no test here waits out."""
    from officegym.integrations.openenv_server import running_server

    limits = ServerLimits(max_sessions_per_client=CAP, idle_timeout=HANG_GUARD)
    with running_server(ENV_ID, max_sessions=8, limits=limits) as base:
        yield base


@pytest.fixture()
def reaping() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID, max_sessions=4, limits=ServerLimits(idle_timeout=IDLE_S)) as base:
        yield base


def create(base: str, local: str = "127.0.0.1") -> dict[str, object]:
    import httpx

    with http(base, transport=httpx.HTTPTransport(local_address=local)) as client:
        return mcp(client, "openenv/session/create")


def close(base: str, session_id: object) -> None:
    with http(base) as client:
        assert mcp(client, "openenv/session/close", {"session_id": session_id})["result"]["closed"] is True


def test_stateless_session_creates_are_capped_per_client_and_another_client_is_served(capped: str) -> None:
    made = [create(capped) for _ in range(CAP)]
    refused = create(capped)
    other = create(capped, local="127.0.0.2")  # another peer address (all of 127/8 is loopback)
    try:
        assert all("session_id" in answer["result"] for answer in made)  # type: ignore[operator]
        message = refused["error"]["message"]  # type: ignore[index]
        assert "--max-sessions-per-client 3" in message and "127.0.0.1 holds 3 sessions" in message
        assert "session_id" in other["result"]  # type: ignore[operator]
    finally:
        for answer in [*made, other]:
            close(capped, answer["result"]["session_id"])  # type: ignore[index]


def test_websockets_count_against_the_same_cap_and_a_closed_one_frees_its_place(capped: str) -> None:
    task_id = one_task_per_tier(ENV_ID)[0]
    http_session = create(capped)["result"]["session_id"]  # type: ignore[index]
    with raw_ws(capped) as first, raw_ws(capped) as second, raw_ws(capped) as third:
        assert text_of(reset(first, task_id)) and text_of(reset(second, task_id))
        refused = json.loads(third.recv(timeout=HANG_GUARD))  # refused at connect; the reply says why
        assert refused["data"]["code"] == "CAPACITY_REACHED", refused
        assert "--max-sessions-per-client" in refused["data"]["message"]
    close(capped, http_session)
    with raw_ws(capped) as again:
        assert text_of(reset(again, task_id))


def test_idle_http_sessions_are_reaped_and_their_later_use_says_so(reaping: str) -> None:
    started = time.monotonic()
    made = [create(reaping)["result"]["session_id"] for _ in range(4)]  # type: ignore[index]
    assert "error" in create(reaping)  # the server is full

    def served() -> bool:
        answer = create(reaping)
        if "result" in answer:
            close(reaping, answer["result"]["session_id"])  # type: ignore[index]
        return "result" in answer

    wait_until(served, "a reaped slot is free again")
    assert time.monotonic() - started >= IDLE_S  # never sooner than the timeout
    with http(reaping) as client:
        late = mcp(client, "tools/list", {"session_id": made[0]})
    message = late["error"]["message"]
    assert f"session {made[0]} was closed after 1 s idle" in message and "--idle-timeout" in message


def test_an_idle_websocket_is_closed_with_a_reason_and_an_active_one_is_kept(reaping: str) -> None:
    task_id = one_task_per_tier(ENV_ID)[0]
    with raw_ws(reaping) as idle, raw_ws(reaping) as busy:
        opened = time.monotonic()
        text_of(reset(idle, task_id))
        text_of(reset(busy, task_id))
        while time.monotonic() - opened < 3 * IDLE_S:  # the busy session acts well within its timeout
            assert text_of(step(busy, {"name": "finish", "arguments": {}})) is not None
            time.sleep(IDLE_S / 5)
        with pytest.raises(ConnectionClosed) as closed:
            reset(idle, task_id)
        assert text_of(step(busy, {"name": "finish", "arguments": {}})) is not None
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4408
    assert "closed after 1 s idle" in closed.value.rcvd.reason
