"""``reset(options=...)`` on every env: the keys an env reads, a one-line refusal of anything else, and a refused
reset that leaves the env as it was.

A typo (``{"task": ...}``) used to be ignored, so the episode ran on a random task. And on Gymnasium 1.4 a first
reset that raised left ``gym.make``'s env unusable: Gymnasium's ``PassiveEnvChecker`` marked that reset as checked
before it ran, kept no reset data, and failed its first ``step`` with ``TypeError: cannot unpack non-iterable
NoneType``. Officegym ids are registered without that checker (``registration.register_env``); the tests here play
a step after each kind of refused first reset, on whichever Gymnasium the run is on.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.core import FINISH_ACTION

from .conftest import make, step, tool_env

REFUSED: dict[str, tuple[Any, str]] = {
    "unknown task_id": ({"task_id": "no-such-task"}, r"unknown task_id 'no-such-task'"),
    "mistyped key": ({"task": "no-such-task"}, r"unknown reset option 'task' \(did you mean 'task_id'\?\)"),
    "extra key": ({"task_id": None, "difficulty": 3}, r"unknown reset option 'difficulty' for "),
    "not a dict": (["task_id"], r"reset options must be a dict or None, got list"),
}
"""Each kind of refused ``options``: the value and what its error says."""


@pytest.mark.parametrize("kind", REFUSED)
def test_refused_options_raise_one_line_naming_the_valid_keys(env_id: str, kind: str) -> None:
    env = make(env_id)
    options, says = REFUSED[kind]
    with pytest.raises(ValueError, match=says) as refused:
        env.reset(options=options)
    message = str(refused.value)
    assert "\n" not in message
    assert "task_id" in message and f"'{tool_env(env).task_ids[0]}'" in message
    env.close()


def test_an_unknown_key_error_names_the_env_and_every_key_it_reads(env_id: str) -> None:
    env = make(env_id)
    with pytest.raises(ValueError) as refused:
        env.reset(options={"seed": 3})
    message = str(refused.value)
    valid = ", ".join(repr(key) for key in tool_env(env).RESET_OPTIONS)
    assert f"for {env_id}; the options it reads are {valid}, e.g. reset(options=" in message
    env.close()


@pytest.mark.parametrize("kind", REFUSED)
def test_a_refused_first_reset_leaves_the_env_usable(env_id: str, kind: str) -> None:
    """The Gymnasium 1.4 crash: the first reset of a ``gym.make`` env is refused, the next one plays."""
    env = make(env_id)
    with pytest.raises(ValueError):
        env.reset(seed=0, options=REFUSED[kind][0])
    task_id = tool_env(env).task_ids[0]
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    assert info["task_id"] == task_id and observation
    observation, _, terminated, _, info = step(env, FINISH_ACTION)
    assert terminated and "grade" in info
    env.close()


def test_a_refused_reset_changes_nothing(env_id: str) -> None:
    """Neither the episode in play nor the RNG: a refused reset with a seed does not reseed the env, so the next
    unseeded reset draws the same task as in an env that never saw the refusal."""
    refused, untouched = make(env_id), make(env_id)
    task_id = tool_env(refused).task_ids[-1]
    for env in (refused, untouched):
        env.reset(seed=5, options={"task_id": task_id})
    with pytest.raises(ValueError):
        refused.reset(seed=123, options={"task": task_id})
    assert tool_env(refused).episode is not None
    assert step(refused, FINISH_ACTION) == step(untouched, FINISH_ACTION)
    assert _next_draw(refused) == _next_draw(untouched)
    for env in (refused, untouched):
        env.close()


def _next_draw(env: gym.Env[Any, Any]) -> tuple[Any, ...]:
    """The task, tier and opening of the next unseeded reset (drawn with the env's RNG)."""
    observation, info = env.reset()
    return info["task_id"], info["tier"], observation


def test_empty_and_absent_options_draw_a_task(env_id: str) -> None:
    """``{}`` is what Gymnasium's checker and SB3's vector env pass; ``{"task_id": None}`` draws as well."""
    env = make(env_id)
    draws = [env.reset(seed=7, options=options)[1]["task_id"] for options in (None, {}, {"task_id": None})]
    assert len(set(draws)) == 1 and draws[0] in tool_env(env).task_ids
    env.close()
