"""Bad input over OpenEnv never drops a session: a bad tool call is the env's own ``Error:`` observation (the
same text a local env gives), a bad reset is an OpenEnv error message naming the problem, malformed protocol
frames get OpenEnv's error responses; the same connection then plays an episode to full marks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from benchmarks.openenv_load import Job, local_replay

from .conftest import ENV_IDS, HANG_GUARD, gold_path, one_task_per_tier


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def bad_actions(tool: str) -> list[Any]:
    """Malformed calls of every kind, built from one of the env's own tool names."""
    return [
        {"name": "no_such_tool", "arguments": {}},
        {"name": tool, "arguments": {"zzz": 1}},
        {"name": tool, "arguments": "not json"},
        {"name": tool, "arguments": [1, 2]},
        {"name": tool, "arguments": {}, "extra": 1},
        {"name": 5},
        {"arguments": {}},
        {},
        {"name": "x" * 5000},
        {"name": tool, "arguments": {"a": 10**200}},
        {"name": tool, "arguments": deep(80)},
        {"name": "\u00e9\u4e2d\U0001f600", "arguments": {"k": "\x00'; DROP TABLE invoices; --"}},
    ]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bad_actions_are_error_observations_and_the_session_goes_on(urls: dict[str, str], env_id: str) -> None:
    from openenv.core.generic_client import GenericEnvClient

    task_id = one_task_per_tier(env_id)[0]
    gold = gold_path(env_id, task_id)
    actions = [*bad_actions(gold[0]["name"]), *gold]
    job = Job(env_id, task_id, 0, tuple(actions))
    with GenericEnvClient(base_url=urls[env_id]).sync() as client:
        records = [client.reset(task_id=task_id, seed=0)]
        for action in actions:
            records.append(client.step(action))
            if records[-1].done:
                break
    texts = [r.observation["text"] for r in records]
    expected = local_replay(job)
    assert texts == [r["text"] for r in expected]  # word for word what a local env answers
    bad = records[1 : 1 + len(bad_actions("t"))]
    assert all(r.observation["text"].startswith("Error: ") and r.observation["info"]["is_error"] for r in bad)
    assert records[-1].reward == 1.0 and records[-1].observation["grade"]["reward"] == 1.0


def test_a_step_before_any_reset_is_an_error_observation(urls: dict[str, str]) -> None:
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=urls[ENV_IDS[0]]).sync() as client:
        result = client.step({"name": "finish", "arguments": {}})
        assert result.observation["text"].startswith("Error: no episode has started")
        assert result.done is True and result.observation["info"]["is_error"] is True


@pytest.mark.parametrize(
    ("reset", "message"),
    [
        ({"task_id": "no-such-task"}, "unknown task_id 'no-such-task'"),
        ({"task_id": 7}, "task_id must be a string"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"seed": "1"}, "seed must be a non-negative integer"),
        ({"seed": True}, "seed must be a non-negative integer"),
        ({"task": "single-1"}, "unknown reset parameter(s): task; officegym takes seed, task_id, episode_id, env_id"),
        ({"env_id": "officegym/VendorReview-v0"}, "this server serves officegym/InvoiceApproval-v0"),
        ({"env_kwargs": "{not json"}, "env_kwargs is not JSON text"),
        ({"env_kwargs": "[1]"}, "env_kwargs must be a JSON object"),
        ({"env_kwargs": {"no_such_option": 1}}, "no_such_option"),
        ({"tier": "single"}, "tier select nothing"),
        ({"row": "single-1"}, "row must be a task row"),
        ({"row": {"task_id": "single-1"}}, "task row lacks env_id, env_kwargs"),
        ({"row": {}, "task_id": "single-1"}, "send a row or its fields, not both"),
    ],
)
def test_a_bad_reset_is_refused_by_name_and_the_connection_stays(
    urls: dict[str, str], reset: dict[str, Any], message: str
) -> None:
    """A misconfigured trainer must hear of it (not get random tasks); OpenEnv's client raises the server's
    message, and the same connection resets fine afterwards."""
    from openenv.core.generic_client import GenericEnvClient

    env_id = ENV_IDS[0]
    with GenericEnvClient(base_url=urls[env_id]).sync() as client:
        with pytest.raises(RuntimeError) as refused:
            client.reset(**reset)
        assert message in str(refused.value)
        task_id = one_task_per_tier(env_id)[0]
        assert client.reset(task_id=task_id).observation["info"]["task_id"] == task_id


def test_malformed_frames_get_openenv_error_responses_on_the_same_connection(urls: dict[str, str]) -> None:
    from websockets.sync.client import connect

    env_id = ENV_IDS[0]
    task_id = one_task_per_tier(env_id)[0]
    with connect(urls[env_id].replace("http://", "ws://") + "/ws", open_timeout=HANG_GUARD) as ws:
        codes = []
        for frame in ["not json", json.dumps({"type": "dance"}), json.dumps({"type": "step", "data": "text"})]:
            ws.send(frame)
            answer = json.loads(ws.recv(timeout=HANG_GUARD))
            codes.append((answer["type"], answer["data"]["code"]))
        ws.send(json.dumps({"type": "reset", "data": {"task_id": task_id}}))
        opening = json.loads(ws.recv(timeout=HANG_GUARD))
    assert codes == [("error", "INVALID_JSON"), ("error", "UNKNOWN_TYPE"), ("error", "VALIDATION_ERROR")]
    assert opening["type"] == "observation" and opening["data"]["observation"]["info"]["task_id"] == task_id
