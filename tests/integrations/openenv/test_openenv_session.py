"""What a reset names and what a session holds, without OpenEnv (``integrations/openenv_session.py``): a row's
world is exactly ``splits.make_env(row)``; the session keeps one env and re-makes it only when the world
changes; a reset with only a task id plays the server's own world."""

from __future__ import annotations

import pytest

from officegym.integrations.openenv_session import OfficeSession, ResetRequest, reset_request
from officegym.splits import make_env, reset_row, task_rows

ENV_ID = "officegym/VendorReview-v2"


def test_a_reset_names_the_servers_world_a_rows_world_or_refuses() -> None:
    server = {"tier": "easy"}
    assert reset_request(ENV_ID, server, {"task_id": "t", "seed": 3}) == ResetRequest(server, "t", 3, None)
    row = {"env_id": ENV_ID, "env_kwargs": '{"deals":5,"first_seed":0,"split":"train"}', "task_id": "t"}
    for params in (row, {"row": row}, {**row, "tier": "easy", "prompt": []}):
        request = reset_request(ENV_ID, server, params)
        assert (request.env_kwargs, request.task_id) == ({"deals": 5, "first_seed": 0, "split": "train"}, "t")
        assert request.world == row["env_kwargs"]
    assert reset_request(ENV_ID, server, {"env_kwargs": {}}).env_kwargs == {}  # a world of its own, task drawn
    with pytest.raises(ValueError, match="this server serves officegym/VendorReview-v2"):
        reset_request(ENV_ID, server, {**row, "env_id": "officegym/VendorReview-v1"})


def test_a_session_remakes_its_env_only_when_the_world_changes() -> None:
    train = task_rows(ENV_ID, "train", sources=1)[:2]
    test = task_rows(ENV_ID, "test")[0]
    session = OfficeSession(ENV_ID)
    first = session.env
    assert session.reset(**test).text == test["prompt"][1]["content"] and session.env is first
    assert session.reset(**train[0]).text == train[0]["prompt"][1]["content"]
    made = session.env
    assert made is not first and first.unwrapped.episode is None  # type: ignore[attr-defined]
    assert session.reset(row=train[1]).text == reset_row(make_env(train[1]), train[1])[0]
    assert session.env is made and session.snapshot()["env_kwargs"] == train[1]["env_kwargs"]
    assert session.reset(task_id=test["task_id"]).text == test["prompt"][1]["content"]
    assert session.snapshot()["env_kwargs"] == "{}"
    session.close()


def test_a_failed_reset_in_a_new_world_leaves_no_episode_to_step() -> None:
    """The old world's episode went with its env: a step after the failed reset is the env's kind of error."""
    test, train = task_rows(ENV_ID, "test")[0], task_rows(ENV_ID, "train", sources=1)[0]
    session = OfficeSession(ENV_ID)
    session.reset(**test)
    with pytest.raises(ValueError, match="unknown task_id 'no-such-task'"):
        session.reset(env_kwargs=train["env_kwargs"], task_id="no-such-task")
    assert session.step({"name": "finish", "arguments": {}}).text.startswith("Error: no episode has started")
    assert session.snapshot()["done"] is True
