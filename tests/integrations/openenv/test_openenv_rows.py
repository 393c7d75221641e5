"""Task rows through the OpenEnv server: a reset that carries a row plays exactly that row's world.

Every row of a train split (one task source) and of the test split of InvoiceApproval-v0, InvoiceApproval-v1
and VendorReview-v2 is reset through OpenEnv's own client, all in one session per split (so the session's env
is re-made at every change of world), and its opening message, system prompt and task are compared with a
direct ``reset_row(make_env(row), row)``. On a sample of rows per split the gold path is played through the
server and the grade compared with a direct play. Generating InvoiceApproval-v1's first training company
takes a minute or more: this module is the slow one of the OpenEnv tests.
"""

from __future__ import annotations

import functools
import json
import threading
import urllib.request
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from officegym.envs.core.actions import FINISH_ACTION
from officegym.integrations.openenv import OfficeSession
from officegym.splits import make_env, reset_row, task_rows

from .conftest import ENV_IDS, HANG_GUARD

ROW_ENVS = ["officegym/InvoiceApproval-v0", "officegym/InvoiceApproval-v1", "officegym/VendorReview-v2"]
SPLITS = [(env_id, split) for env_id in ROW_ENVS for split in ("train", "test")]
SAMPLE = 5
"""Rows per split whose gold path is played through the server (evenly spread over the split)."""


@functools.cache
def rows_of(env_id: str, split: str) -> list[dict[str, Any]]:
    """The split's rows from one task source (made once per test process: generating a company is slow)."""
    return task_rows(env_id, split, sources=1)


def direct(row: dict[str, Any], actions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What a local env of the row's world answers: the opening, and the grade after ``actions``."""
    env = make_env(row)
    opening, info = reset_row(env, row)
    grade = None
    for action in actions or []:
        _, _, terminated, truncated, step_info = env.step(action)
        if terminated or truncated:
            grade = step_info["grade"]
            break
    env.close()
    return {"text": opening, "system_prompt": info["system_prompt"], "task_id": info["task_id"], "grade": grade}


def gold(row: dict[str, Any]) -> list[dict[str, Any]]:
    env = make_env(row)
    path = [*env.unwrapped.gold_actions(row["task_id"]), FINISH_ACTION]  # type: ignore[attr-defined]
    env.close()
    return path


def as_reset(row: dict[str, Any], index: int) -> dict[str, Any]:
    """The three ways a row reaches ``reset``, in turn: the whole row flat (``reset(**row)``, as TRL's factory
    is called), its world fields only, and under ``row``."""
    if index % 3 == 0:
        return dict(row)
    if index % 3 == 1:
        return {key: row[key] for key in ("env_id", "env_kwargs", "task_id")}
    return {"row": row}


@pytest.mark.parametrize(("env_id", "split"), SPLITS)
def test_every_row_of_a_split_opens_its_own_world_through_the_server(
    urls: dict[str, str], env_id: str, split: str
) -> None:
    from openenv.core.generic_client import GenericEnvClient

    rows = rows_of(env_id, split)
    assert rows and all(row["split"] == split for row in rows)
    mismatches = []
    with GenericEnvClient(base_url=urls[env_id], message_timeout_s=600).sync() as client:
        for index, row in enumerate(rows):
            opening = client.reset(**as_reset(row, index)).observation
            seen = {"text": opening["text"], "system_prompt": opening["info"]["system_prompt"]}
            seen["task_id"] = opening["info"]["task_id"]
            expected = direct(row)
            expected.pop("grade")
            if seen != expected or opening["text"] != row["prompt"][1]["content"]:
                mismatches.append(f"{row['source']} {row['task_id']}")
        state = client.state()
    assert mismatches == []
    assert (state["env_kwargs"], state["task_id"]) == (rows[-1]["env_kwargs"], rows[-1]["task_id"])


@pytest.mark.parametrize(("env_id", "split"), SPLITS)
def test_gold_paths_of_rows_grade_through_the_server_as_in_a_direct_play(
    urls: dict[str, str], env_id: str, split: str
) -> None:
    from openenv.core.generic_client import GenericEnvClient

    rows = rows_of(env_id, split)
    sample = rows[:: max(1, len(rows) // SAMPLE)][:SAMPLE]
    with GenericEnvClient(base_url=urls[env_id], message_timeout_s=600).sync() as client:
        for row in sample:
            path = gold(row)
            client.reset(row=row)
            for action in path:
                result = client.step(action)
                if result.done:
                    break
            assert result.observation["grade"] == direct(row, path)["grade"], row["task_id"]
            assert result.reward == 1.0, row["task_id"]


def test_a_reset_with_only_a_task_id_goes_back_to_the_servers_own_world(urls: dict[str, str]) -> None:
    """After a training company's row, ``reset(task_id=...)`` plays the server's world again (task ids repeat
    across companies: the opening must be the shipped company's, not the training company's)."""
    from openenv.core.generic_client import GenericEnvClient

    env_id = "officegym/InvoiceApproval-v0"
    train, test = rows_of(env_id, "train")[0], rows_of(env_id, "test")[0]
    assert train["task_id"] == test["task_id"] and train["prompt"] != test["prompt"]
    with GenericEnvClient(base_url=urls[env_id], message_timeout_s=600).sync() as client:
        assert client.reset(**train).observation["text"] == train["prompt"][1]["content"]
        assert client.reset(task_id=test["task_id"]).observation["text"] == test["prompt"][1]["content"]
        assert client.state()["env_kwargs"] == "{}"
        assert client.reset(**train).observation["text"] == train["prompt"][1]["content"]


@pytest.mark.parametrize(
    ("reset", "message"),
    [
        (
            {"env_id": ENV_IDS[-1], "env_kwargs": "{}", "task_id": "x"},
            "this server serves officegym/InvoiceApproval-v0",
        ),
        ({"env_kwargs": json.dumps({"company_seed": "x"}), "task_id": "single-1"}, "company_seed"),
        ({"env_kwargs": "{}", "task_id": "no-such-task"}, "unknown task_id 'no-such-task'"),
        ({"row": {"env_id": ENV_IDS[0], "env_kwargs": "{}"}}, "task row lacks task_id"),
    ],
)
def test_a_row_the_server_cannot_play_is_refused_by_name_and_the_session_goes_on(
    urls: dict[str, str], reset: dict[str, Any], message: str
) -> None:
    from openenv.core.generic_client import GenericEnvClient

    row = rows_of(ENV_IDS[0], "test")[0]
    with GenericEnvClient(base_url=urls[ENV_IDS[0]], message_timeout_s=600).sync() as client:
        with pytest.raises(RuntimeError) as refused:
            client.reset(**reset)
        assert message in str(refused.value)
        assert client.reset(**row).observation["text"] == row["prompt"][1]["content"]


def test_a_new_world_is_made_on_the_worker_thread_and_episodes_on_the_event_loop(
    urls: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generating a company must not stop the event loop every session runs on."""
    from openenv.core.generic_client import GenericEnvClient

    threads: dict[str, set[str]] = {"build_env": set(), "start": set()}
    for method in threads:
        original = getattr(OfficeSession, method)

        def recorded(self: OfficeSession, *args: Any, _name: str = method, _original: Any = original) -> Any:
            threads[_name].add(threading.current_thread().name)
            return _original(self, *args)

        monkeypatch.setattr(OfficeSession, method, recorded)
    env_id = "officegym/VendorReview-v2"
    rows = rows_of(env_id, "train")[:2] + rows_of(env_id, "test")[:1]
    with GenericEnvClient(base_url=urls[env_id], message_timeout_s=600).sync() as client:
        for row in rows:
            client.reset(**row)
    assert threads["build_env"] == {"officegym-worlds_0"}
    assert len(threads["start"]) == 1 and threads["start"] != threads["build_env"]


def test_the_stateless_http_reset_takes_a_row_too(urls: dict[str, str]) -> None:
    """OpenEnv's HTTP ``/reset`` (a fresh env per request) passes a reset's extra fields on, a row's included."""
    row = rows_of("officegym/VendorReview-v2", "train")[3]
    body = json.dumps({"env_kwargs": row["env_kwargs"], "task_id": row["task_id"]}).encode()
    request = urllib.request.Request(f"{urls[row['env_id']]}/reset", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
        opening = json.loads(response.read())["observation"]
    assert opening["text"] == row["prompt"][1]["content"] and opening["info"]["task_id"] == row["task_id"]
