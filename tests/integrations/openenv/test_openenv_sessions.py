"""Sessions and threads: every session has its own env, every env call of a server runs on one thread (its
event loop's), never two at once (officegym envs are not thread-safe), and a full server refuses a session
without disturbing the others."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from benchmarks.openenv_load import Job, local_replay, plan, problems, remote_record, run_round
from officegym.integrations.openenv import OfficeSession

from .conftest import ENV_IDS, HANG_GUARD, gold_path, one_task_per_tier


def test_every_env_call_runs_on_one_thread_of_its_server_and_every_session_has_its_own_env(
    urls: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six sessions per env at once, on the two in-process servers: each server makes every reset and step on
    one thread of its own (not the caller's), one call at a time, and no two sessions share an env."""
    calls: list[tuple[str, int, int]] = []  # (env id, session, thread) of every reset and step
    busy = {env_id: threading.Lock() for env_id in ENV_IDS}
    for method in ("reset", "step"):
        original = getattr(OfficeSession, method)

        def recorded(self: OfficeSession, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            assert busy[self.env_id].acquire(blocking=False), "two calls at once on one server"
            try:
                calls.append((self.env_id, id(self), threading.get_ident()))
                return _original(self, *args, **kwargs)
            finally:
                busy[self.env_id].release()

        monkeypatch.setattr(OfficeSession, method, recorded)
    jobs = [job for env_id in ENV_IDS for job in plan([env_id])[:6]]
    result = run_round(urls, jobs)
    assert result["problems"] == [] and result["episodes_graded_1"] == len(jobs)
    threads = {env_id: {thread for env, _, thread in calls if env == env_id} for env_id in ENV_IDS}
    assert all(len(used) == 1 for used in threads.values())
    assert threading.get_ident() not in set.union(*threads.values())
    assert len({session for _, session, _ in calls}) == len(jobs)


def test_two_sessions_on_the_same_task_never_see_each_others_writes(urls: dict[str, str]) -> None:
    """Both reset before either acts; the first plays its whole gold path (its writes included), then the
    second does: shared books would make the second's writes fail as already done."""
    from openenv.core.generic_client import GenericEnvClient

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[-1]
    job = Job(env_id, task_id, 0, tuple(gold_path(env_id, task_id)))

    async def both() -> list[list[dict[str, Any]]]:
        clients = [GenericEnvClient(base_url=urls[env_id]) for _ in range(2)]
        seen: list[list[dict[str, Any]]] = [[remote_record(await c.reset(task_id=task_id, seed=0))] for c in clients]
        for client, records in zip(clients, seen, strict=True):
            for action in job.actions:
                records.append(remote_record(await client.step(action)))
                if records[-1]["done"]:
                    break
            await client.close()
        return seen

    first, second = asyncio.run(both())
    assert first == second == local_replay(job)
    assert first[-1]["grade"]["reward"] == 1.0


def test_a_session_beyond_the_limit_is_refused_and_the_others_carry_on() -> None:
    from openenv.core.generic_client import GenericEnvClient

    from officegym.integrations.openenv_server import running_server

    env_id = ENV_IDS[-1]
    task_id = one_task_per_tier(env_id)[0]
    with running_server(env_id, max_sessions=1) as url:
        with GenericEnvClient(base_url=url).sync() as first:
            first.reset(task_id=task_id)
            assert refusal(url) == "CAPACITY_REACHED"
            for action in gold_path(env_id, task_id):
                if first.step(action).done:
                    break
            assert first.state()["grade"]["reward"] == 1.0
        deadline = time.monotonic() + HANG_GUARD  # a closed session is destroyed a moment after its client has gone
        while refusal(url) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert refusal(url) is None


def refusal(url: str) -> str | None:
    """The error code a new WebSocket session is refused with, or None if it is accepted (then reset and
    closed). A refused session gets OpenEnv's error unasked, then the server hangs up; an accepted one hears
    nothing until it sends a reset (waiting briefly first is only a shortcut: a late refusal is read after)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(url.replace("http://", "ws://") + "/ws", open_timeout=HANG_GUARD) as ws:
        try:
            answer = json.loads(ws.recv(timeout=0.5))
        except TimeoutError:
            with contextlib.suppress(ConnectionClosed):
                ws.send(json.dumps({"type": "reset", "data": {}}))
            answer = json.loads(ws.recv(timeout=HANG_GUARD))
    return None if answer["type"] == "observation" else str(answer["data"]["code"])


def test_problems_names_a_session_that_differs_from_the_local_env() -> None:
    """The load test's check itself: a session whose observations are not the local env's is reported."""
    from benchmarks.openenv_load import Session

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[0]
    job = Job(env_id, task_id, 0, tuple(gold_path(env_id, task_id)))
    expected = local_replay(job)
    tampered = [dict(record) for record in expected]
    tampered[2]["text"] = "an observation of another session"
    assert problems(Session(job, records=expected), expected) == []
    assert "observation 2 differs from the local env's in text" in problems(Session(job, records=tampered), expected)[0]
