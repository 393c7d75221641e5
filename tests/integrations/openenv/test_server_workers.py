"""``officegym serve --workers N`` (issue 26): worker processes on one port, sessions pinned to one worker.

The servers here are real ``officegym serve`` subprocesses with two workers. Fresh TCP connections are spread
over the workers by the kernel (``SO_REUSEPORT``), so a stateless ``POST /mcp`` call naming a session lands on
either worker; every one must reach the worker that holds the session. WebSocket episodes play to the end on
whichever worker took the connection, a killed worker is started again, and SIGTERM stops every process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from benchmarks.openenv_load import Job, local_replay
from officegym.cli import main
from officegym.integrations.server_routing import PEER_HEADER, session_worker, worker_prefix

from .conftest import HANG_GUARD, gold_path, one_task_per_tier
from .server_clients import ask, raw_ws, reset

ENV_ID = "officegym/InvoiceApproval-v0"
TOKEN = "workers-test-token-0123456789"
WORKER = "x-officegym-worker"
SERVE = [sys.executable, "-m", "officegym.cli", "serve", ENV_ID, "--port", "0", "--workers", "2"]
CONNECTIONS = 24
"""Fresh connections per check: all on one of two workers by chance has probability 2 x 2^-24."""


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]

    def workers(self) -> list[int]:
        """The pids of the worker processes (the supervisor's children running ``worker_main``)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return [int(pid) for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]


@contextmanager
def workers_server(*options: str) -> Iterator[Server]:
    """``officegym serve ENV --workers 2 --port 0`` until the block ends, then SIGTERM: exit 0, no worker left."""
    command = [*SERVE, *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert "2 workers" in line, line
        server = Server(line.split(" on ", 1)[1].split(" ", 1)[0], process)
        pids = server.workers()
        assert len(pids) == 2
        yield server
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=HANG_GUARD) == 0
        assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=HANG_GUARD)


def rpc(
    url: str, method: str, params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None
) -> httpx.Response:
    """One JSON-RPC call on ``POST /mcp`` over a fresh connection (so the kernel picks the worker anew)."""
    body = {"jsonrpc": "2.0", "method": method, "params": dict(params or {}), "id": 1}
    with httpx.Client(base_url=url, timeout=HANG_GUARD, headers=dict(headers or {})) as client:
        return client.post("/mcp", json=body)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with workers_server() as running:
        yield running


def test_http_sessions_are_made_on_both_workers_and_every_call_reaches_the_one_that_holds_it(server: Server) -> None:
    made = [rpc(server.url, "openenv/session/create") for _ in range(CONNECTIONS)]
    ids = [answer.json()["result"]["session_id"] for answer in made]
    assert Counter(answer.headers[WORKER] for answer in made).keys() == {"0", "1"}
    assert all(
        sid.startswith(worker_prefix(int(answer.headers[WORKER]))) for sid, answer in zip(ids, made, strict=True)
    )
    for session_id in ids:
        listed = rpc(server.url, "tools/list", {"session_id": session_id})
        assert listed.headers[WORKER] == session_id[1], listed.text
        assert listed.json()["result"]["tools"], listed.text
        called = rpc(server.url, "tools/call", {"session_id": session_id, "name": "list_invoices", "arguments": {}})
        assert called.json()["result"]["data"].startswith("Error: no episode has started"), called.text
    for session_id in ids:
        closed = rpc(server.url, "openenv/session/close", {"session_id": session_id}).json()
        assert closed["result"] == {"session_id": session_id, "closed": True}
        again = rpc(server.url, "openenv/session/close", {"session_id": session_id}).json()
        assert again["error"]["message"] == f"Unknown session_id: {session_id}"


def test_websocket_episodes_play_to_the_end_on_either_worker(server: Server) -> None:
    """Gold episodes on fresh sockets: each answers as a local env does and scores 1.0, on both workers."""
    task_id = one_task_per_tier(ENV_ID)[0]
    path = gold_path(ENV_ID, task_id)
    expected = local_replay(Job(ENV_ID, task_id, 0, tuple(path)))
    served: Counter[str] = Counter()
    for _ in range(CONNECTIONS // 2):
        with raw_ws(server.url) as ws:
            assert ws.response is not None
            served[ws.response.headers[WORKER]] += 1
            replies = [reset(ws, task_id, seed=0)]
            replies += [ask(ws, {"type": "step", "data": call}) for call in path[: len(expected) - 1]]
        observations = [reply["data"]["observation"] for reply in replies]
        assert [observation["text"] for observation in observations] == [record["text"] for record in expected]
        assert observations[-1]["grade"]["reward"] == 1.0
    assert served.keys() == {"0", "1"}


def test_a_client_cannot_claim_another_peer_address(server: Server) -> None:
    """``x-officegym-peer`` is believed only on the workers' own Unix sockets: sent over TCP to a tokenless
    server it is dropped (the request is served as the loopback peer it is), so it can neither lift the
    per-client cap onto another address nor pass a non-loopback check."""
    for _ in range(4):
        answer = rpc(server.url, "openenv/session/create", headers={PEER_HEADER.decode(): "203.0.113.9"})
        session_id = answer.json()["result"]["session_id"]
        assert rpc(server.url, "openenv/session/close", {"session_id": session_id}).json()["result"]["closed"]


def test_a_routed_call_is_checked_for_the_token_before_it_is_forwarded() -> None:
    with workers_server("--token", TOKEN) as server:
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        ids = [
            rpc(server.url, "openenv/session/create", headers=bearer).json()["result"]["session_id"] for _ in range(8)
        ]
        for session_id in ids:
            refused = rpc(server.url, "tools/list", {"session_id": session_id})
            assert refused.status_code == 401 and refused.json()["detail"].startswith("Error: no Authorization")
            assert rpc(server.url, "tools/list", {"session_id": session_id}, headers=bearer).json()["result"]["tools"]


def test_a_killed_worker_is_started_again_and_its_sessions_are_answered_clearly() -> None:
    with workers_server() as server:
        ids = [rpc(server.url, "openenv/session/create").json()["result"]["session_id"] for _ in range(CONNECTIONS)]
        victim = server.workers()[0]
        os.kill(victim, signal.SIGKILL)
        line = restart_line(server)
        victim_index = int(line.split("worker ", 1)[1].split(" ", 1)[0])
        lost = [sid for sid in ids if sid.startswith(worker_prefix(victim_index))]
        kept = [sid for sid in ids if not sid.startswith(worker_prefix(victim_index))]
        assert lost and kept
        for session_id in lost:
            answer = rpc(server.url, "tools/list", {"session_id": session_id})
            message = answer.json().get("detail") or answer.json()["error"]["message"]
            assert "not answering" in message or message == f"Unknown session_id: {session_id}", message
        for session_id in kept:
            assert rpc(server.url, "tools/list", {"session_id": session_id}).json()["result"]["tools"]
        assert len(server.workers()) == 2 and victim not in server.workers()


def restart_line(server: Server) -> str:
    """The supervisor's line saying it starts a worker again (other lines a worker logs are skipped)."""
    assert server.process.stderr is not None
    for line in server.process.stderr:
        if line.startswith("officegym serve: worker ") and "starting it again" in line:
            return line
    raise AssertionError("the server ended without restarting its worker")


def test_workers_end_when_the_supervisor_is_killed() -> None:
    """SIGKILL gives the supervisor no chance to stop its workers; they end by themselves (the kernel's parent
    death signal) and free the port."""
    command = SERVE
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        server = Server(line.split(" on ", 1)[1].split(" ", 1)[0], process)
        pids = server.workers()
        assert len(pids) == 2
    finally:
        process.kill()
        process.wait(timeout=HANG_GUARD)
    deadline = time.monotonic() + HANG_GUARD  # a hang guard, not a speed check
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)]


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, dead but not yet reaped by init, counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("value", ["0", "-1", "257", "100000000000000000000"])
def test_a_bad_workers_count_is_one_line_and_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", ENV_ID, "--workers", value]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"Error: --workers must be between 1 and 256, got {value}"


def test_a_workers_count_that_is_not_a_number_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", ENV_ID, "--workers", "two"])
    assert exit_info.value.code == 2 and "--workers: invalid int value: 'two'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("body", "worker"),
    [
        (b'{"params": {"session_id": "w1-abc"}}', 1),
        (b'{"params": {"session_id": "w12-abc"}}', 12),
        (b'{"params": {"session_id": "w12345-abc"}}', None),
        (b'{"params": {"session_id": "0e4c-uuid"}}', None),
        (b'{"params": {"session_id": 7}}', None),
        (b'{"params": ["session_id"]}', None),
        (b'[{"params": {"session_id": "w1-x"}}]', None),
        (b'{"params": {"session_id": "w1-x"', None),
        (b"[" * 100_000 + b'"session_id"' + b"]" * 100_000, None),
        (b'{"params": {"session_id": "w1-\\ud800"}}', 1),
        (json.dumps({"params": {"session_id": "w0-" + "x" * 1_000_000}}).encode(), 0),
        (b'{"method": "tools/list"}', None),
    ],
)
def test_the_worker_of_a_body_is_read_without_failing_on_any_input(body: bytes, worker: int | None) -> None:
    assert session_worker(body) == worker
