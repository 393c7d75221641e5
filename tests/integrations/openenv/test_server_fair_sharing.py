"""Issue 27, the server, end to end: a client over its budget (``server_budget.py``) is held back and still
served, and a second client, stepping at the same time, is never held and gets exactly a local env's
observations. What was held is read from the server's own counters (``app.state.officegym_budgets``), whose
clock is frozen for each test (no bucket refills, so what is held does not depend on how fast the machine is);
no test here times anything (the latency under abuse is ``benchmarks/server_abuse.py``'s to measure)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from websockets.exceptions import ConnectionClosed

from officegym.integrations.server_budget import FREE_BYTES, ClientBudgets
from officegym.integrations.server_limits import ServerLimits

from .conftest import HANG_GUARD, gold_path, one_task_per_tier
from .server_clients import http, raw_ws, reset, step, text_of

ENV_ID = "officegym/InvoiceApproval-v0"
LIMIT = 32 * 1024
LIMITS = ServerLimits(
    max_body_bytes=LIMIT, client_bytes_per_s=LIMIT, max_sessions_per_client=4, client_sessions_per_s=8.0
)
"""Bursts: 32 KiB of message bytes (beyond 16 KiB a message), 8 new sessions."""
ABUSER, WELL_BEHAVED, STATELESS = "127.0.0.2", "127.0.0.1", "127.0.0.3"


@contextmanager
def serving(app: Any, limits: ServerLimits) -> Iterator[str]:
    """``app`` under uvicorn with ``officegym serve``'s settings, on a thread; yields the base URL."""
    import uvicorn

    from officegym.integrations.server_http import uvicorn_options

    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **uvicorn_options(limits, 16)))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, "the server started")
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=HANG_GUARD)
        sock.close()


def wait_until(condition: Any, what: str) -> None:
    """Poll ``condition()`` until true (a hang guard, not a speed check)."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, ClientBudgets]]:
    from officegym.integrations.openenv import create_app

    app = create_app(ENV_ID, max_sessions=16, limits=LIMITS)
    with serving(app, LIMITS) as base:
        yield base, app.state.officegym_budgets


@pytest.fixture()
def served(server: tuple[str, ClientBudgets]) -> Iterator[tuple[str, ClientBudgets]]:
    """The server with its budgets' clock stopped for the test (a wait is still slept, for real)."""
    budgets = server[1]
    running, budgets.clock = budgets.clock, lambda: 1000.0
    try:
        yield server
    finally:
        budgets.clock = running


def large_step(size: int) -> str:
    return json.dumps({"type": "step", "data": {"name": "get_invoice", "arguments": {"x": "A" * size}}})


def play_gold(base: str, task_id: str) -> list[str]:
    """One gold episode from the well-behaved address; every observation text, the reset's first."""
    with raw_ws(base, source_address=(WELL_BEHAVED, 0)) as ws:
        texts = [text_of(reset(ws, task_id))]
        for call in gold_path(ENV_ID, task_id):
            reply = step(ws, call)
            texts.append(text_of(reply))
            if reply["data"]["done"]:
                break
    return texts


def local_gold(task_id: str, steps: int) -> list[str]:
    env = gym.make(ENV_ID)
    texts = [env.reset(seed=0, options={"task_id": task_id})[0]]
    texts += [env.step(call)[0] for call in gold_path(ENV_ID, task_id)]
    env.close()
    return texts[:steps]


def test_a_client_over_its_byte_budget_is_held_and_served_while_another_is_not_held(
    served: tuple[str, ClientBudgets],
) -> None:
    base, budgets = served
    replies: list[dict[str, Any]] = []

    def abuse() -> None:
        with raw_ws(base, source_address=(ABUSER, 0)) as ws:
            text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))
            for _ in range(4):  # 4 x 15 KiB charged against a 32 KiB burst: the 3rd and 4th are held
                ws.send(large_step(LIMIT - 1024))
                replies.append(json.loads(ws.recv(timeout=HANG_GUARD)))

    abuser = threading.Thread(target=abuse, daemon=True)
    abuser.start()
    task_id = one_task_per_tier(ENV_ID)[0]
    remote = play_gold(base, task_id)
    abuser.join(timeout=HANG_GUARD)
    assert remote == local_gold(task_id, len(remote))
    assert len(replies) == 4 and all(text_of(reply).startswith("Error: ") for reply in replies)
    assert budgets.held[ABUSER] == 2  # slowed...
    assert budgets.held[WELL_BEHAVED] == 0 and WELL_BEHAVED not in budgets.bytes  # ...and only the abuser


def test_a_refused_oversize_frame_holds_the_clients_next_connection_which_is_then_served(
    served: tuple[str, ClientBudgets],
) -> None:
    base, budgets = served
    address = "127.0.0.4"
    for _ in range(2):  # the first empties the bucket, the second puts it in debt
        with pytest.raises(ConnectionClosed) as closed, raw_ws(base, source_address=(address, 0)) as ws:
            ws.send("A" * (2 * LIMIT))
            ws.recv(timeout=HANG_GUARD)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    wait_until(lambda: address in budgets.bytes and budgets.bytes[address].level < 0, "the refusal was charged")
    held = budgets.held[address]
    with raw_ws(base, source_address=(address, 0)) as ws:
        assert text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))
    assert budgets.held[address] == held + 1


def test_stateless_requests_beyond_the_session_budget_are_held_and_answered(
    served: tuple[str, ClientBudgets],
) -> None:
    import httpx

    base, budgets = served
    task_id = one_task_per_tier(ENV_ID)[0]
    with http(base, transport=httpx.HTTPTransport(local_address=STATELESS)) as client:
        answers = [client.post("/reset", json={"task_id": task_id}) for _ in range(6)]  # burst: 8
        answers += [client.post("/reset", json={"task_id": task_id}) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200] * 10
    assert budgets.held[STATELESS] == 2 and budgets.refused[STATELESS] == 0


def test_a_large_http_body_is_charged_to_its_client_only(served: tuple[str, ClientBudgets]) -> None:
    import httpx

    base, budgets = served
    address = "127.0.0.5"
    body = {"action": {"name": "get_invoice", "arguments": {"x": "A" * (LIMIT - 1024)}}}
    with http(base, transport=httpx.HTTPTransport(local_address=address)) as client:
        answer = client.post("/step", json=body)
    assert answer.status_code == 200, answer.text
    assert budgets.byte_burst - budgets.bytes[address].level == len(answer.request.content) - FREE_BYTES
