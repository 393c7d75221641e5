"""ToolEnv's guarantees under hostile use: step() never raises for any action, threads get a clear error,
copies are refused, and Gymnasium's own TimeLimit grades the episode it cuts."""

from __future__ import annotations

import copy
import json
import pickle
import threading
from typing import Any

import gymnasium as gym
import pytest

import officegym
from officegym.envs.core import ToolEnv

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
ENV_IDS = sorted(officegym.ENV_IDS)
HANG_GUARD = 600.0
"""Seconds a thread waits for another: a guard against a hang, never a speed check."""


class Shouty:
    """An object whose repr and str raise: nothing may print it unguarded."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")

    __str__ = __repr__


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def hostile_actions(tool: str) -> dict[str, Any]:
    """Actions that used to raise out of step() or put unencodable text into the observation."""
    deep_text = '{"name": "' + tool + '", "arguments": {"x": ' + "[" * 5000 + "]" * 5000 + "}}"
    return {
        "JSON text nested 5,000 deep": deep_text,
        "JSON text nested 990 deep": '{"name": "x", "arguments": ' + "[" * 990 + "]" * 990 + "}",
        "a value nested 5,000 deep": {"name": tool, "arguments": {"x": nested(5000)}},
        "an action nested 5,000 deep": nested(5000),
        "an integer of 5,000 digits": {"name": tool, "arguments": {"x": 10**5000}},
        "an integer of 5,000 digits as text": '{"name": "' + tool + '", "arguments": {"x": ' + "9" * 5000 + "}}",
        "an integer of 200 digits": {"name": tool, "arguments": {"x": -(10**200)}},
        "an integer key of 5,000 digits": {"name": tool, 10**5000: 1},
        "a lone surrogate in an argument": {"name": tool, "arguments": {"x": "ER-\ud800"}},
        "a lone surrogate in a key": {"name": tool, "arguments": {"\udfff": "x"}},
        "a lone surrogate as the tool name": {"name": "\ud800", "arguments": {}},
        "a lone surrogate escaped in JSON text": '{"name": "' + tool + '", "arguments": {"x": "\\ud800"}}',
        "a surrogate in arguments JSON text": {"name": tool, "arguments": '{"x": "\\udc00"}'},
        "invalid UTF-8 bytes": b'{"name": "\xff\xfe"}',
        "an object that cannot be printed": {"name": tool, "arguments": {"x": Shouty()}},
        "an action that cannot be printed": Shouty(),
        "a set": {"name": tool, "arguments": {"x": {1, 2}}},
        "NaN and infinity": '{"name": "' + tool + '", "arguments": {"x": NaN, "y": Infinity}}',
        "1 MB of text": "x" * 1_000_000,
        "a 1 MB key": {"name": tool, "k" * 1_000_000: 1},
    }


def first_tool(env: gym.Env[Any, Any]) -> str:
    name: str = env.unwrapped.tool_schemas[0]["function"]["name"]  # type: ignore[attr-defined]
    return name


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_step_never_raises_answers_error_and_changes_nothing(env_id: str, render_mode: str | None) -> None:
    env = gym.make(env_id, render_mode=render_mode, max_turns=200)
    inner: ToolEnv[Any] = env.unwrapped  # type: ignore[assignment]
    task_id = inner.task_ids[0]
    env.reset(seed=0, options={"task_id": task_id})
    before = {k: v for k, v in inner.progress().items() if k not in ("turns", "invalid_calls")}
    for label, action in hostile_actions(first_tool(env)).items():
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation.startswith("Error: "), label
        assert info["is_error"] and reward == 0.0 and not terminated and not truncated, label
        observation.encode("utf-8")  # a JSON or HTTP client must accept every observation
        json.dumps(observation, ensure_ascii=False).encode("utf-8")
    if render_mode == "ansi":
        text: str = env.render()  # type: ignore[assignment]
        text.encode("utf-8")
    after = {k: v for k, v in inner.progress().items() if k not in ("turns", "invalid_calls")}
    assert after == before
    for action in inner.gold_actions(task_id):  # the env is still fully usable
        result = env.step(action)
    if not (result[2] or result[3]):
        result = env.step({"name": "finish", "arguments": {}})
    assert result[1] == 1.0


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("JSON text nested 990 deep", "nested more than 64 levels deep"),
        ("an integer of 5,000 digits", "a number of more than 100 digits"),
        ("an integer of 5,000 digits as text", "a number of more than 100 digits"),
        ("a lone surrogate in an argument", "not valid Unicode (a lone surrogate)"),
        ("a lone surrogate as the tool name", "not valid Unicode (a lone surrogate)"),
        ("invalid UTF-8 bytes", "not valid JSON"),
    ],
)
def test_each_hostile_action_gets_a_message_that_names_the_problem(label: str, expected: str) -> None:
    env = gym.make(VENDOR)
    env.reset(seed=0)
    assert expected in env.step(hostile_actions(first_tool(env))[label])[0]


def test_a_hostile_action_does_not_break_an_async_vector_env() -> None:
    envs = officegym.make_vec(INVOICE, 2, "async", tier="single")
    try:
        envs.reset(seed=0)
        tool = "whoami"
        deep = hostile_actions(tool)["JSON text nested 990 deep"]
        observations, *_ = envs.step((deep, {"name": tool, "arguments": {}}))
        assert observations[0].startswith("Error: ") and not observations[1].startswith("Error")
        observations, *_ = envs.step(({"name": tool, "arguments": {}},) * 2)
        assert not any(o.startswith("Error") for o in observations)
        envs.reset(seed=1)
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_copies_and_pickles_are_forks_never_shared_books(env_id: str) -> None:
    env = gym.make(env_id, max_turns=400)
    inner: ToolEnv[Any] = env.unwrapped  # type: ignore[assignment]
    task_id = inner.task_ids[-1]
    env.reset(seed=0, options={"task_id": task_id})
    gold = inner.gold_actions(task_id)
    copies: list[ToolEnv[Any]] = [copy.copy(inner), copy.deepcopy(inner), pickle.loads(pickle.dumps(env)).unwrapped]
    for action in gold:
        env.step(action)
    assert inner.progress()["reward"] == 1.0
    assert all(c.progress()["reward"] < 1.0 and c.stats.turns == 0 for c in copies)  # nothing of it shows
    for other in copies:
        for action in gold:
            other.step(action)
        assert other.progress()["reward"] == 1.0


def test_a_second_thread_inside_the_env_gets_a_clear_error() -> None:
    env = gym.make(INVOICE, tier="single")
    inner: ToolEnv[Any] = env.unwrapped  # type: ignore[assignment]
    env.reset(seed=0)
    inside, release = threading.Event(), threading.Event()
    original = inner.toolbox.execute

    def slow_execute(ctx: Any, action: Any) -> Any:
        inside.set()
        release.wait(HANG_GUARD)
        return original(ctx, action)

    inner.toolbox.execute = slow_execute  # type: ignore[method-assign]
    worker = threading.Thread(target=env.step, args=({"name": "whoami", "arguments": {}},))
    worker.start()
    assert inside.wait(HANG_GUARD)
    try:
        with pytest.raises(RuntimeError, match="in use by another thread"):
            env.step({"name": "whoami", "arguments": {}})
        with pytest.raises(RuntimeError, match="in use by another thread"):
            env.reset(seed=1)
    finally:
        release.set()
        worker.join(HANG_GUARD)
    inner.toolbox.execute = original  # type: ignore[method-assign]
    assert not env.step({"name": "whoami", "arguments": {}})[0].startswith("Error")  # taking turns is fine


def test_threads_taking_turns_on_one_env_work() -> None:
    env = gym.make(VENDOR)
    env.reset(seed=0)
    results: list[str] = []
    for _ in range(3):
        worker = threading.Thread(
            target=lambda: results.append(
                env.step({"name": "read_doc", "arguments": {"doc_id": "requirements-matrix"}})[0]
            )
        )
        worker.start()
        worker.join(HANG_GUARD)
    assert len(results) == 3


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_time_limit_grades_the_episode_it_cuts(env_id: str) -> None:
    probe: ToolEnv[Any] = gym.make(env_id).unwrapped  # type: ignore[assignment]
    task_id = probe.task_ids[0]
    gold = probe.gold_actions(task_id)
    env = gym.make(env_id, task_ids=[task_id], max_episode_steps=len(gold))
    env.reset(seed=0)
    for action in gold:
        _, reward, terminated, truncated, info = env.step(action)
    assert (reward, truncated) == (1.0, True) or (reward, terminated) == (1.0, True)
    assert info["grade"]["reward"] == 1.0
    assert env.step(gold[0])[0].startswith("Error: the episode is over")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_time_limit_before_the_work_is_done_is_graded_not_silent(env_id: str) -> None:
    env = gym.make(env_id, max_episode_steps=1)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step({"name": "no_such_tool", "arguments": {}})
    assert truncated and not terminated
    assert info["grade"]["reward"] == reward  # graded: the grade says what the cut-off work is worth


def test_without_max_episode_steps_nothing_is_added_to_the_step_path() -> None:
    env = gym.make(INVOICE)
    assert "GradeAtTimeLimit" not in str(env) and "TimeLimit" not in str(env)
