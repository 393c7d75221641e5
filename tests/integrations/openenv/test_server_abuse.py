"""Issue 27, the server: one client sending 7.5 MB frames held up every other session, and 300 connections with
unfinished headers stayed open. Now a WebSocket message over ``--max-body-bytes`` is refused before it is read
(close 1009), a connection that has not finished its request headers within ``--header-timeout`` is closed,
and, while one client keeps doing both, a well-behaved client plays its episodes with exactly a local env's
observations and no error. How fast it is served meanwhile is measured by ``benchmarks/server_abuse.py``, not
here (the times below are lower bounds only)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import gymnasium as gym
import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from websockets.exceptions import ConnectionClosed

from officegym.integrations.server_limits import ServerLimits

from .conftest import HANG_GUARD, gold_path, one_task_per_tier
from .server_clients import host_port, open_socket, raw_ws, reset, step, text_of

ENV_ID = "officegym/InvoiceApproval-v0"
LIMIT = 64 * 1024
HEADER_S = 0.5


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    limits = ServerLimits(max_body_bytes=LIMIT, header_timeout=HEADER_S)
    with running_server(ENV_ID, limits=limits) as base:
        yield base


def oversize_frame() -> str:
    return json.dumps({"type": "step", "data": {"name": "x", "arguments": {"blob": "A" * (2 * LIMIT)}}})


def test_a_websocket_message_over_the_limit_is_closed_with_1009(url: str) -> None:
    with raw_ws(url) as ws:
        text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))
        with pytest.raises(ConnectionClosed) as closed:
            ws.send(oversize_frame())
            ws.recv(timeout=HANG_GUARD)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_connection_with_unfinished_headers_is_closed_after_the_header_timeout(url: str) -> None:
    sock = open_socket(url)
    started = time.monotonic()
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    assert sock.recv(1024) == b""  # closed by the server, without an answer
    assert time.monotonic() - started >= HEADER_S  # never sooner than the timeout
    sock.close()


def test_a_body_trickled_past_the_header_timeout_gets_408_and_the_connection_ends(url: str) -> None:
    sock = open_socket(url)
    started = time.monotonic()
    head = b"POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    sock.sendall(head + b'{"task_id"')  # 10 of the 100 bytes, and then nothing
    answer = b""
    while chunk := sock.recv(4096):
        answer += chunk
    assert time.monotonic() - started >= HEADER_S  # never sooner than the timeout
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 408") and b"connection: close" in status.lower(), answer[:300]
    assert json.loads(body)["detail"].startswith("Error: request body not received within 0.5 s")
    sock.close()


def test_a_finished_request_is_never_cut_by_the_header_timeout(url: str) -> None:
    with raw_ws(url) as ws:
        text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))
        time.sleep(2 * HEADER_S)  # an open WebSocket is past its headers
        assert text_of(step(ws, {"name": "finish", "arguments": {}}))


ABUSER = "127.0.0.2"
"""The abuser's own peer address (all of 127/8 is loopback): another client, with a budget of its own."""


class Abuser:
    """One client doing everything issue 27 did at once, on a thread, until stopped: frames over the limit,
    frames just under it, and connections that never finish their headers."""

    def __init__(self, url: str) -> None:
        self.url, self.stop, self.rounds = url, threading.Event(), 0
        self.thread = threading.Thread(target=self.run, name="abuser", daemon=True)

    def run(self) -> None:
        slow: list[socket.socket] = []
        near_limit = json.dumps({"type": "step", "data": {"name": "x", "arguments": {"b": "A" * (LIMIT - 200)}}})
        while not self.stop.is_set():
            sock = socket.create_connection(host_port(self.url), timeout=HANG_GUARD, source_address=(ABUSER, 0))
            sock.sendall(b"POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)
            try:
                with raw_ws(self.url, source_address=(ABUSER, 0)) as ws:
                    ws.send(near_limit)
                    ws.recv(timeout=HANG_GUARD)
                    ws.send(oversize_frame())
                    ws.recv(timeout=HANG_GUARD)
            except ConnectionClosed:
                pass
            self.rounds += 1
        for sock in slow:
            sock.close()

    def __enter__(self) -> Abuser:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=HANG_GUARD)


def test_a_well_behaved_client_is_served_correctly_while_another_abuses_the_server(url: str) -> None:
    tasks = one_task_per_tier(ENV_ID)
    env = gym.make(ENV_ID)
    with Abuser(url) as abuser:
        while abuser.rounds < 3:  # the abuse is under way before the episodes start
            time.sleep(0.05)
        for task_id in tasks:
            gold = gold_path(ENV_ID, task_id)
            with raw_ws(url) as ws:
                remote, replies = [text_of(reset(ws, task_id))], []
                for call in gold:
                    replies.append(step(ws, call))
                    remote.append(text_of(replies[-1]))
                    if replies[-1]["data"]["done"]:
                        break
            local = [env.reset(seed=0, options={"task_id": task_id})[0]] + [env.step(c)[0] for c in gold]
            assert remote == local[: len(remote)] and replies[-1]["data"]["reward"] == 1.0
        rounds = abuser.rounds
    env.close()
    assert rounds >= 3
