"""What only the example domain shows: its registration works in a spawned worker, its writes refuse without a
trace, its baseline fails where it should, its task file agrees with its rules, and its catalogue can play the
gold path. (The contract itself is checked on it by the other modules, as on every env.)"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.core import FINISH_ACTION
from officegym.policies.registry import make_policy
from officegym.policies.rollout import run_episode
from officegym.tests.example_domain import EXAMPLE_ID
from officegym.tests.example_domain.episode import PettyCashEpisode
from officegym.tests.example_domain.tasks import EMPLOYEE_ID, load_tasks
from officegym.wrappers import DiscreteToolCalls

from .conftest import gold_path, play, step, tool_env

LIMIT = Decimal("100.00")


def test_a_spawned_vector_worker_finds_the_entry_point() -> None:
    """Spawned workers import everything afresh, with no registry entry for the example: the class itself is the
    entry point, so it must resolve by module path."""
    envs: Any = officegym.make_vec(EXAMPLE_ID, 1, "async", vector_kwargs={"context": "spawn"})
    observations, infos = envs.reset(seed=0, options={"task_id": "pc-easy-01"})
    assert "PC-101" in observations[0] and infos["tier"].tolist() == ["easy"]
    _, _, terminated, _, infos = envs.step((FINISH_ACTION,))
    assert terminated.all() and infos["final_info"]["grade"]["reward"].tolist() == [0.0]
    envs.close()


def _episode(env: gym.Env[Any, Any]) -> PettyCashEpisode:
    episode = tool_env(env).episode
    assert isinstance(episode, PettyCashEpisode)
    return episode


@pytest.mark.parametrize(("receipt_id", "why"), [("PC-102", "reimbursed"), ("PC-999", "no receipt")])
def test_a_refused_write_leaves_no_trace(receipt_id: str, why: str) -> None:
    env = gym.make(EXAMPLE_ID)
    env.reset(seed=0, options={"task_id": "pc-easy-01"})
    before = dict(_episode(env).status)
    observation, *_ = step(env, {"name": "mark_reimbursed", "arguments": {"receipt_id": receipt_id}})
    assert observation.startswith("Error: ") and why in observation
    assert _episode(env).status == before


@pytest.mark.parametrize(("task_id", "reward"), [("pc-easy-01", 1.0), ("pc-hard-01", 0.0), ("pc-hard-02", 0.0)])
def test_the_greedy_baseline_fails_only_where_a_receipt_is_over_the_limit(task_id: str, reward: float) -> None:
    env = gym.make(EXAMPLE_ID)
    assert run_episode(env, make_policy("greedy", env), task_id=task_id, seed=0).reward == reward


@pytest.mark.parametrize("task_id", list(load_tasks()))
def test_each_answer_is_what_the_rules_say(task_id: str) -> None:
    """The expected receipts are exactly the submitted ones of at most 100.00 EUR of the employees named."""
    task = load_tasks()[task_id]
    named = set(EMPLOYEE_ID.findall(task.request))
    eligible = {
        r.id
        for r in task.receipts
        if r.employee_id in named and r.status == "submitted" and Decimal(r.amount_eur) <= LIMIT
    }
    assert task.reimburse == eligible
    assert {r.employee_id for r in task.receipts} <= named


@pytest.mark.parametrize("task_id", list(load_tasks()))
def test_the_catalogue_can_play_the_gold_path(task_id: str) -> None:
    env = DiscreteToolCalls(gym.make(EXAMPLE_ID))
    env.reset(seed=0, options={"task_id": task_id})
    for action in gold_path(env, task_id)[:-1]:
        index = env.index_of(action) if action["name"] != "close_request" else 1
        assert index is not None, f"no unmasked entry means {action}"
        _, reward, terminated, _, _ = env.step(index)
    assert terminated and reward == 1.0


def test_paying_twice_is_refused_and_the_grade_stands() -> None:
    env = gym.make(EXAMPLE_ID)
    env.reset(seed=0, options={"task_id": "pc-easy-01"})
    pay = {"name": "mark_reimbursed", "arguments": {"receipt_id": "PC-101"}}
    steps = play(env, [pay, pay, FINISH_ACTION])
    assert steps[1][0] == "Error: PC-101 is reimbursed; only submitted receipts can be reimbursed"
    assert steps[-1][1] == 1.0 and steps[-1][4]["grade"]["invalid_calls"] == 1
