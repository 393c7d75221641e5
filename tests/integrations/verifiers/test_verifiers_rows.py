"""Rows of both splits reach the verifiers surface intact: every task plays the world its row names.

For InvoiceApproval-v1 (whose task ids are the same strings in every company) and VendorReview-v2, every row of a
train split (one source: a generated company, a range of 200 generated deals) and of the test split becomes a
task whose data is the row's world, and the toolset's env factory (``ToolSession``, what the tool server builds
every rollout's episode with) opens it with exactly the row's prompt, which is also what a direct
``reset_row(make_env(row), row)`` shows. Every row's gold path, played through a tool session, scores 1.0 (the
gold check ``vf-validate`` runs), and a sample of them, played over MCP on one tool server, is scored 1.0 by the
task's reward with the row's source in the trace.

A train split of InvoiceApproval-v1 generates its company first (tens of seconds of CPU, once per process).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import verifiers.v1 as vf

from officegym.integrations import verifiers as ogv
from officegym.integrations import verifiers_toolset as server
from officegym.splits import make_env, reset_row, task_rows

from .conftest import Rollout, run

ENV_IDS = ["officegym/InvoiceApproval-v1", "officegym/VendorReview-v2"]
SPLITS = ["train", "test"]
CASES = [(env_id, split) for env_id in ENV_IDS for split in SPLITS]
SAMPLE = 6  # rows per env and split whose gold path is also played over MCP
WORLD_FIELDS = ("env_id", "env_kwargs", "task_id", "tier", "split", "source")


def rows_and_tasks(env_id: str, split: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """The split's rows (one source) straight from ``officegym.splits``, and the env's taskset's tasks."""
    return task_rows(env_id, split, sources=1), list(ogv.env_taskset(env_id, split=split, sources=1))


def direct_opening(row: dict[str, Any]) -> str:
    env = make_env(row)
    try:
        return str(reset_row(env, row)[0])
    finally:
        env.close()


@pytest.mark.parametrize(("env_id", "split"), CASES)
def test_every_row_is_a_task_that_opens_on_the_row_world(env_id: str, split: str) -> None:
    rows, tasks = rows_and_tasks(env_id, split)
    assert len(tasks) == len(rows) > 0
    assert len({task.key for task in tasks}) == len(tasks)
    for row, task in zip(rows, tasks, strict=True):
        assert {name: getattr(task.data, name) for name in WORLD_FIELDS} == {name: row[name] for name in WORLD_FIELDS}
        assert [task.data.system_prompt, task.data.prompt] == [message["content"] for message in row["prompt"]]
        session = server.ToolSession(task.data)
        try:
            assert session.opening == task.data.prompt == direct_opening(row), (row["task_id"], row["source"])
        finally:
            session.close()
    sources = {row["source"] for row in rows}
    if split == "test":
        assert sources == {"shipped"} and {row["env_kwargs"] for row in rows} == {"{}"}
    else:
        assert len(sources) == 1 and "shipped" not in sources and all(row["env_kwargs"] != "{}" for row in rows)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_train_task_never_opens_on_the_test_world(env_id: str) -> None:
    """InvoiceApproval's task ids repeat across companies: the same id opens on other invoices in the training
    company. VendorReview's train and test deals have different ids and openings."""
    train, test = (rows_and_tasks(env_id, split)[1] for split in SPLITS)
    test_openings = {task.data.task_id: task.data.prompt for task in test}
    shared = [task for task in train if task.data.task_id in test_openings]
    if env_id.startswith("officegym/InvoiceApproval"):
        assert shared
    assert all(task.data.prompt != test_openings[task.data.task_id] for task in shared)
    assert not {task.data.prompt for task in train} & set(test_openings.values())


@pytest.mark.parametrize(("env_id", "split"), CASES)
def test_every_gold_path_passes_the_gold_check(env_id: str, split: str) -> None:
    _, tasks = rows_and_tasks(env_id, split)
    failed = [task.data.name for task in tasks if run(task.validate(None)) is not True]
    assert failed == []


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_sample_of_gold_paths_over_mcp_scores_full_marks_with_the_source_in_the_trace(env_id: str) -> None:
    toolset = ogv.OfficeGymToolset(vf.SharedToolsetConfig())
    for split in SPLITS:
        _, tasks = rows_and_tasks(env_id, split)
        for task in tasks[:: max(1, len(tasks) // SAMPLE)][:SAMPLE]:
            rollout = Rollout(task, toolset)
            env: Any = make_env({"env_id": env_id, "env_kwargs": task.data.env_kwargs, "task_id": task.data.task_id})
            results = rollout.play(list(env.unwrapped.gold_actions(task.data.task_id)))
            trace = rollout.score()
            assert not any(result.is_error for result in results), task.data.name
            assert trace.rewards["grade"].score == 1.0, (task.data.name, trace.info)
            logged = {name: trace.info["officegym"][name] for name in ("split", "source", "env_kwargs")}
            assert logged == {"split": split, "source": task.data.source, "env_kwargs": task.data.env_kwargs}
