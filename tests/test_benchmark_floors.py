"""The floors ``benchmarks/server_workers.py`` measures officegym's server against: the no-op tool env and the
replay of InvoiceApproval-v0 (v0's calls and replies without v0's work). A floor that said something other than
what v0 says would split the server's cost wrongly, so the replay is checked against v0 on every gold step."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401  (registers the envs)
from benchmarks import replay_tool_env, server_workers
from officegym.envs.core.actions import FINISH_ACTION
from officegym.integrations.openenv_session import OfficeSession


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


@pytest.fixture(scope="module")
def pair() -> tuple[gym.Env[Any, Any], gym.Env[Any, Any]]:
    return gym.make(replay_tool_env.SOURCE_ID), gym.make(replay_tool_env.ENV_ID)


def test_the_replay_answers_every_gold_step_of_every_v0_task_as_v0_does(
    pair: tuple[gym.Env[Any, Any], gym.Env[Any, Any]],
) -> None:
    source, replay = pair
    inner: Any = source.unwrapped
    steps = 0
    for task in inner.task_ids:
        assert canonical(source.reset(seed=0, options={"task_id": task})) == canonical(
            replay.reset(seed=0, options={"task_id": task})
        ), task
        for call in [*inner.gold_actions(task), FINISH_ACTION]:
            assert canonical(source.step(call)) == canonical(replay.step(call)), (task, call)
            steps += 1
    assert steps > 1000  # every task's path, not a handful


def test_the_replay_checks_calls_as_v0_does(pair: tuple[gym.Env[Any, Any], gym.Env[Any, Any]]) -> None:
    """The dispatch is v0's (same tools and schemas): a bad call is refused with v0's words."""
    source, replay = pair
    task = source.unwrapped.task_ids[0]  # type: ignore[attr-defined]
    for env in pair:
        env.reset(seed=0, options={"task_id": task})
    for call in ({"name": "no_such_tool", "arguments": {}}, {"name": "get_invoice", "arguments": {"invoice_id": 5}}):
        assert source.step(call)[0] == replay.step(call)[0]
        assert replay.step(call)[0].startswith("Error: ")


def test_the_replay_plays_behind_the_server_session_by_its_module_id() -> None:
    session = OfficeSession(server_workers.REPLAY)
    task = session.env.unwrapped.task_ids[0]  # type: ignore[attr-defined]
    session.reset(task_id=task, seed=0)
    turn = session.step(FINISH_ACTION)
    assert turn.done and turn.grade is not None
    session.close()


def test_the_two_parts_of_the_gap_multiply_to_the_whole() -> None:
    rates = {
        f"{env_id} x{workers}": rate * workers
        for env_id, rate in zip(server_workers.ENVS, (60.0, 90.0, 100.0), strict=True)
        for workers in (1, 2)
    }
    found = server_workers.ratios(rates)
    assert found["env_vs_noop_1_worker"] == 0.6
    assert found["replay_vs_noop_1_worker"] == 0.9
    assert found["env_vs_replay_1_worker"] == pytest.approx(0.667)
    assert found["env_2_workers_vs_1"] == found["noop_2_workers_vs_1"] == 2.0
