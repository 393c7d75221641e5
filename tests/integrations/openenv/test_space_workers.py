"""The Space's ``server/app.py`` with ``OFFICEGYM_WORKERS=2``: ``officegym serve --workers``'s supervisor and
two spawned workers behind the one port, started by the Dockerfile's command as a container would run it.

The kernel spreads fresh connections over the workers (``SO_REUSEPORT``), so connections are opened until
both workers have played an episode to the end; SIGTERM (``docker stop``) then stops every process.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from .conftest import gold_path, one_task_per_tier
from .server_clients import raw_ws, reset, step, text_of
from .test_openenv_space import space_process
from .test_server_workers import WORKER, Server, _alive

ENV_ID = "officegym/VendorReview-v0"
MAX_CONNECTIONS = 64
"""Fresh connections to find both workers on: all on one of two workers by chance has probability 2 x 2^-64."""


def test_the_space_serves_from_two_workers_that_each_play_an_episode_and_stop_with_it(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    task_id = one_task_per_tier(ENV_ID)[0]
    variables = {"OFFICEGYM_ENV_ID": ENV_ID, "OFFICEGYM_WORKERS": "2", "OFFICEGYM_MAX_SESSIONS": "4"}
    with space_process(log, variables) as (url, process):
        pids = Server(url, process).workers()
        assert len(pids) == 2
        served: Counter[str] = Counter()
        rewards: list[float] = []
        while served.keys() != {"0", "1"} and len(rewards) < MAX_CONNECTIONS:
            worker, reward = play_gold_episode(url, task_id)
            served[worker] += 1
            rewards.append(reward)
    assert served.keys() == {"0", "1"} and rewards == [1.0] * len(rewards), (served, rewards)
    assert f"officegym serve: {ENV_ID} on {url} " in log.read_text() and ", 2 workers" in log.read_text()
    assert process.returncode == 0, log.read_text()
    assert not [pid for pid in pids if _alive(pid)]


def play_gold_episode(url: str, task_id: str) -> tuple[str, float]:
    """A reset and the task's reference steps on a fresh WebSocket: the worker that served it, and its reward."""
    with raw_ws(url) as ws:
        assert ws.response is not None
        assert text_of(reset(ws, task_id))
        for call in gold_path(ENV_ID, task_id):
            reply = step(ws, call)
            text_of(reply)
            if reply["data"]["done"]:
                break
        reward: float = reply["data"]["observation"]["grade"]["reward"]
        return ws.response.headers[WORKER], reward
