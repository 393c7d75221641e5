"""OpenEnv's own clients play officegym episodes against ``officegym serve``'s app, unchanged.

``GenericEnvClient`` (OpenEnv's client for any server, dicts in and out) plays the gold path of the first task
of every tier of every env to reward 1.0 with the grade in its own field, every observation equal to a local
env's; the typed ``OfficeGymClient`` does the same with OpenEnv's models; ``state`` and the HTTP endpoints
answer as OpenEnv defines them.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from benchmarks.openenv_load import Job, local_replay, remote_record

from .conftest import ENV_IDS, HANG_GUARD, gold_path, one_task_per_tier

CASES = [(env_id, task_id) for env_id in ENV_IDS for task_id in one_task_per_tier(env_id)]


def play_generic(url: str, job: Job) -> list[dict[str, Any]]:
    """Reset and play ``job`` with OpenEnv's ``GenericEnvClient`` (sync wrapper); every observation as a record."""
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=url).sync() as client:
        records = [remote_record(client.reset(task_id=job.task_id, seed=job.seed))]
        for action in job.actions:
            result = client.step(action)
            records.append(remote_record(result))
            if result.done:
                break
    return records


@pytest.mark.parametrize(("env_id", "task_id"), CASES)
def test_the_generic_openenv_client_plays_a_gold_path_to_full_marks(
    urls: dict[str, str], env_id: str, task_id: str
) -> None:
    job = Job(env_id, task_id, 7, tuple(gold_path(env_id, task_id)))
    records = play_generic(urls[env_id], job)
    last = records[-1]
    assert last["done"] is True and last["reward"] == 1.0
    assert last["grade"]["reward"] == 1.0  # info["grade"], in its own field
    assert all(r["grade"] is None for r in records[:-1])
    assert records == local_replay(job)  # every observation, reward and info as a local env gives them
    assert records[0]["info"]["task_id"] == task_id and records[0]["info"]["system_prompt"]


def test_the_typed_client_plays_an_episode_with_openenvs_models(urls: dict[str, str]) -> None:
    from officegym.integrations.openenv import OfficeGymAction, OfficeGymClient, OfficeGymObservation

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[0]
    with OfficeGymClient(base_url=urls[env_id]).sync() as client:
        opening = client.reset(task_id=task_id, seed=3)
        assert isinstance(opening.observation, OfficeGymObservation) and opening.observation.text
        assert [tool["function"]["name"] for tool in opening.observation.info["tools"]]
        steps = 0
        for call in gold_path(env_id, task_id):
            result = client.step(OfficeGymAction(**call))
            steps += 1
            if result.done:
                break
        assert result.reward == 1.0 and result.observation.grade["reward"] == 1.0
        state = client.state()
    assert (state.env_id, state.task_id, state.seed, state.done) == (env_id, task_id, 3, True)
    assert state.step_count == steps and state.grade["reward"] == 1.0


def test_state_follows_the_session_and_a_finished_episode_keeps_its_result(urls: dict[str, str]) -> None:
    from openenv.core.generic_client import GenericEnvClient

    env_id = ENV_IDS[-1]
    task_id = one_task_per_tier(env_id)[0]
    with GenericEnvClient(base_url=urls[env_id]).sync() as client:
        assert client.state()["done"] is True and client.state()["step_count"] == 0  # no episode yet
        client.reset(task_id=task_id, episode_id="run-1")
        started = client.state()
        assert (started["task_id"], started["step_count"], started["done"], started["grade"]) == (
            task_id,
            0,
            False,
            None,
        )
        for call in gold_path(env_id, task_id):
            if client.step(call).done:
                break
        after = client.step({"name": "finish", "arguments": {}})  # the episode is over: an Error, nothing changes
        state = client.state()
    assert after.observation["text"].startswith("Error:") and after.done is True
    assert state["episode_id"] == "run-1" and state["task_id"] == task_id
    assert state["reward"] == 1.0 and state["grade"]["reward"] == 1.0


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=HANG_GUARD) as response:
        return json.loads(response.read())


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_http_endpoints_answer_as_openenv_defines_them(urls: dict[str, str], env_id: str) -> None:
    """OpenEnv 0.3's HTTP ``/reset`` and ``/step`` are stateless (a fresh env per request): a reset answers
    the opening, a step alone has no episode to act on. Sessions are the WebSocket's."""
    url, task_id = urls[env_id], one_task_per_tier(env_id)[0]
    assert _get(f"{url}/health") == {"status": "healthy"}
    assert _get(f"{url}/metadata")["name"] == env_id
    schema = _get(f"{url}/schema")
    assert {"name", "arguments"} <= set(schema["action"]["properties"])
    assert {"text", "grade", "truncated", "info", "done", "reward"} <= set(schema["observation"]["properties"])
    opening = _post(f"{url}/reset", {"task_id": task_id, "seed": 1})
    assert opening["observation"]["text"] == local_replay(Job(env_id, task_id, 1, ()))[0]["text"]
    alone = _post(f"{url}/step", {"action": {"name": "finish", "arguments": {}}})
    assert alone["observation"]["text"].startswith("Error: no episode") and alone["done"] is True
