"""``officegym serve`` on Ray Serve across a local multi-node Ray cluster (issue 26).

A head node with no CPUs (it holds Serve's controller and its one HTTP proxy) and two worker nodes with one
CPU each; ``deploy`` places two replicas, at most one per node, so each worker node runs one. Through the
proxy, concurrent OpenEnv WebSocket sessions play whole gold episodes of InvoiceApproval-v0: every episode is
graded 1.0, every observation equals a local env's, and both replicas (both nodes) serve sessions, each session
staying on the replica that opened it. HTTP ``/mcp`` sessions reach their replica by the ``x-session-id`` key;
without the key they are refused. Nothing is timed; every socket waits at most the hang guard.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the replicas run the OpenEnv app: pip install 'officegym[ray,openenv]'")

import httpx
from websockets.sync.client import connect

from benchmarks.openenv_load import Job, local_replay, plan, record
from benchmarks.ray_serve_scale import free_port
from officegym.integrations.ray_serve import APP_NAME, deploy
from officegym.integrations.ray_serve_asgi import NODE_HEADER, REPLICA_HEADER, SESSION_KEY_HEADER

# Ray Serve pins nothing of gymnasium, but the ray extra does (1.2.2): `make test` runs these in .venv-ray
ray = pytest.importorskip("ray", reason="needs the ray extra: `make test` runs these in .venv-ray")
serve = pytest.importorskip("ray.serve", reason="needs the ray extra: pip install 'officegym[ray,openenv]'")

HANG_GUARD = 600.0
"""Seconds any socket may wait: a guard against a hang, not a speed check."""
INVOICE = "officegym/InvoiceApproval-v0"
SESSIONS_PER_REPLICA = 3


@pytest.fixture(scope="module")
def worker_nodes() -> Iterator[set[str]]:
    """A local Ray cluster: a head without CPUs and two one-CPU workers; yields the workers' node ids."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
    cluster.wait_for_nodes(timeout=HANG_GUARD)
    ray.init(address=cluster.address)
    try:
        yield {worker.node_id for worker in workers}
    finally:
        serve.shutdown()
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(scope="module")
def url(worker_nodes: set[str]) -> str:
    return deploy(INVOICE, replicas=2, port=free_port(), proxy_location="HeadOnly", max_replicas_per_node=1)


def http(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=HANG_GUARD)


def served_by(headers: Any) -> tuple[str, str]:
    """The (replica, node) a response names."""
    return headers[REPLICA_HEADER.decode()], headers[NODE_HEADER.decode()]


@pytest.fixture(scope="module")
def keys_by_replica(url: str) -> dict[tuple[str, str], list[str]]:
    """Session keys that Ray Serve's consistent hash sends to each replica, found by asking ``GET /health``
    with each key until both replicas have ``SESSIONS_PER_REPLICA`` (the hash of 400 keys missing a replica
    has probability 2**-399)."""
    found: dict[tuple[str, str], list[str]] = {}
    with http(url) as client:
        for n in range(400):
            key = f"session-{n}"
            answer = client.get("/health", headers={SESSION_KEY_HEADER: key})
            assert answer.status_code == 200, answer.text
            found.setdefault(served_by(answer.headers), []).append(key)
            if len(found) == 2 and all(len(keys) >= SESSIONS_PER_REPLICA for keys in found.values()):
                break
    return found


def test_two_replicas_run_on_the_two_worker_nodes(
    worker_nodes: set[str], keys_by_replica: dict[tuple[str, str], list[str]]
) -> None:
    replicas = {replica for replica, _ in keys_by_replica}
    nodes = {node for _, node in keys_by_replica}
    assert len(replicas) == 2 and nodes == worker_nodes


def test_both_replicas_are_healthy(url: str) -> None:
    status = serve.status().applications[APP_NAME]
    deployment = status.deployments["OfficeGymReplica"]
    assert status.status == "RUNNING" and deployment.status == "HEALTHY"
    assert deployment.replica_states == {"RUNNING": 2}


def ws_url(url: str, path: str = "/ws") -> str:
    return url.replace("http://", "ws://", 1) + path


def remote_record(reply: dict[str, Any]) -> dict[str, Any]:
    assert reply["type"] == "observation", reply
    data: dict[str, Any] = reply["data"]
    obs = data["observation"]
    fields: dict[str, Any] = record(
        obs["text"], data.get("reward"), data.get("done"), obs["truncated"], obs["grade"], obs["info"]
    )
    return fields


def play(url: str, job: Job, key: str | None) -> tuple[tuple[str, str], list[dict[str, Any]]]:
    """One whole episode over OpenEnv's WebSocket protocol; the replica the handshake named and every record."""
    headers = {SESSION_KEY_HEADER: key} if key else {}
    with connect(ws_url(url), open_timeout=HANG_GUARD, close_timeout=HANG_GUARD, additional_headers=headers) as ws:
        assert ws.response is not None
        where = served_by(ws.response.headers)

        def ask(message: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps(message))
            reply: dict[str, Any] = json.loads(ws.recv(timeout=HANG_GUARD))
            return reply

        records = [remote_record(ask({"type": "reset", "data": {"task_id": job.task_id, "seed": job.seed}}))]
        for action in job.actions:
            records.append(remote_record(ask({"type": "step", "data": action})))
            if records[-1]["done"]:
                break
        ask({"type": "state"})
        ws.send(json.dumps({"type": "close"}))
    return where, records


def test_concurrent_gold_episodes_over_websockets_on_both_nodes_equal_a_local_env(
    url: str, keys_by_replica: dict[tuple[str, str], list[str]]
) -> None:
    """Six sessions at once, three keyed to each replica, plus two without a key (routed as Ray Serve likes)."""
    keyed = [(replica, key) for replica, keys in keys_by_replica.items() for key in keys[:SESSIONS_PER_REPLICA]]
    jobs = plan([INVOICE])[: len(keyed) + 2]
    keys: list[str | None] = [key for _, key in keyed] + [None, None]
    with ThreadPoolExecutor(len(jobs)) as pool:
        played = list(pool.map(lambda pair: play(url, *pair), zip(jobs, keys, strict=True)))
    for job, (_, records) in zip(jobs, played, strict=True):
        assert records == local_replay(job), job.task_id
        assert records[-1]["done"] and records[-1]["reward"] == 1.0, job.task_id
    assert [where for where, _ in played[: len(keyed)]] == [replica for replica, _ in keyed]
    assert {where for where, _ in played} == set(keys_by_replica)


def test_an_mcp_websocket_session_stays_on_the_replica_that_opened_it(
    url: str, keys_by_replica: dict[tuple[str, str], list[str]]
) -> None:
    """MCP over WebSocket: the connection is routed once, to the replica its key names, and every JSON-RPC
    request on it is answered there."""
    for replica, (key, *_) in keys_by_replica.items():
        with connect(
            ws_url(url, "/mcp"),
            open_timeout=HANG_GUARD,
            close_timeout=HANG_GUARD,
            additional_headers={SESSION_KEY_HEADER: key},
        ) as ws:
            assert ws.response is not None and served_by(ws.response.headers) == replica
            answers = []
            for n, method in enumerate(("tools/list", "tools/list")):
                ws.send(json.dumps({"jsonrpc": "2.0", "method": method, "params": {}, "id": n}))
                answers.append(json.loads(ws.recv(timeout=HANG_GUARD)))
        assert [answer["id"] for answer in answers] == [0, 1]
        assert all(answer["result"]["tools"] for answer in answers)


def mcp(client: httpx.Client, key: str | None, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
    headers = {SESSION_KEY_HEADER: key} if key else {}
    body = {"jsonrpc": "2.0", "method": method, "params": params or {}, "id": 1}
    return client.post("/mcp", json=body, headers=headers)


def test_http_mcp_sessions_reach_their_replica_by_key(
    url: str, keys_by_replica: dict[tuple[str, str], list[str]]
) -> None:
    (home, (key, *_)), (_, (elsewhere, *_)) = keys_by_replica.items()
    with http(url) as client:
        made = mcp(client, key, "openenv/session/create")
        session = made.json()["result"]["session_id"]
        listed = mcp(client, key, "tools/list", {"session_id": session})
        assert "tools" in listed.json()["result"]
        lost = mcp(client, elsewhere, "tools/list", {"session_id": session}).json()
        assert "Unknown session_id" in lost["error"]["message"]  # why the key matters
        closed = mcp(client, key, "openenv/session/close", {"session_id": session})
        assert closed.json()["result"]["closed"] is True
    assert {served_by(answer.headers) for answer in (made, listed, closed)} == {home}


def test_http_mcp_without_a_session_key_is_refused_with_the_fix(url: str) -> None:
    with http(url) as client:
        answer = mcp(client, None, "openenv/session/create")
    assert answer.status_code == 400
    detail = answer.json()["detail"]
    assert detail.startswith("Error: ") and SESSION_KEY_HEADER in detail
