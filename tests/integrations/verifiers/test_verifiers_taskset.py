"""The verifiers taskset, its MCP tool server and its reward, driven in process along the gold paths.

Each tool server here is the real ``OfficeGymToolset`` reached over MCP's in-memory client (``conftest.Rollout``),
so the tool catalogue and the results are what a model sees over HTTP; scoring is the task's own ``score`` on
the rollout's trace. The whole path over HTTP, with ``vf-eval`` and a model endpoint, is
``test_verifiers_eval.py``; rows of both splits are ``test_verifiers_rows.py``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra is not installed: pip install 'officegym[verifiers]'")

import verifiers.v1 as vf

import officegym
from officegym.integrations import verifiers as ogv
from officegym.integrations import verifiers_toolset as server

from .conftest import Rollout, gold, run

ENV_IDS = sorted(officegym.ENV_IDS)


def first_task_of_each_tier(env_id: str) -> list[str]:
    """A few tasks per env, one per tier (the hardest tier has the longest gold paths)."""
    env: Any = gym.make(env_id).unwrapped
    firsts = {env.task_tier(task_id): task_id for task_id in reversed(env.task_ids)}
    return [firsts[tier] for tier in env.TIERS if tier in firsts]


def task_of(env_id: str, task_id: str, **options: Any) -> Any:
    return next(iter(ogv.taskset(env_id, **options).include(ids=[task_id])))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rows_are_the_env_tasks_with_their_prompts(env_id: str) -> None:
    env: Any = gym.make(env_id).unwrapped
    tasks = list(ogv.taskset(env_id))
    assert [t.data.task_id for t in tasks] == env.task_ids
    assert len({t.key for t in tasks}) == len(tasks)
    first = tasks[0]
    opening, info = gym.make(env_id).reset(seed=0, options={"task_id": first.data.task_id})
    assert (first.data.prompt, first.data.system_prompt) == (opening, info["system_prompt"])
    assert (first.data.id, first.data.tier) == (first.data.task_id, env.task_tier(first.data.task_id))
    assert (first.data.split, first.data.source, first.data.env_kwargs) == ("test", "shipped", "{}")
    hardest = env.TIERS[-1]
    assert {t.data.tier for t in ogv.taskset(env_id, tiers=[hardest])} == {hardest}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_tool_server_offers_the_env_tools(env_id: str) -> None:
    tools = Rollout(next(iter(ogv.taskset(env_id)))).tools()
    schemas = gym.make(env_id).unwrapped.tool_schemas  # type: ignore[attr-defined]
    assert [(t.name, t.input_schema) for t in tools] == [
        (s["function"]["name"], s["function"]["parameters"]) for s in schemas
    ]
    assert all(t.description for t in tools)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_gold_path_through_the_toolset_scores_full_marks(env_id: str) -> None:
    for task_id in first_task_of_each_tier(env_id):
        rollout = Rollout(task_of(env_id, task_id))
        results = rollout.play(gold(env_id, task_id))
        trace = rollout.score()
        assert not any(r.is_error for r in results), task_id
        assert trace.rewards["grade"].score == 1.0, (task_id, trace.info)
        assert trace.info["officegym"]["grade"]["reward"] == 1.0
        assert trace.metrics["grade_invalid_calls"] == 0.0
        assert len(rollout.state.actions) == len(rollout.state.digests) == len(results)


def test_one_server_plays_interleaved_rollouts_and_rebuilds_evicted_episodes() -> None:
    """Two rollouts of each env take turns on one tool server that keeps one live episode: every call but the
    first of a rollout finds its episode evicted and rebuilds it from the rollout's record."""
    toolset = ogv.OfficeGymToolset(vf.SharedToolsetConfig())
    toolset.sessions.max_live = 1
    rollouts = [
        (Rollout(task_of(env_id, task_id), toolset), gold(env_id, task_id))
        for env_id in ENV_IDS
        for task_id in first_task_of_each_tier(env_id)[:2]
    ]
    for turn in range(max(len(path) for _, path in rollouts)):
        for rollout, path in rollouts:
            if turn < len(path):
                rollout.play([path[turn]])
    assert [rollout.score().rewards["grade"].score for rollout, _ in rollouts] == [1.0] * len(rollouts)
    assert len(toolset.sessions.live) <= 1


def test_an_episode_the_env_ended_is_scored_by_the_env_and_stops_the_rollout() -> None:
    env_id, task_id = "officegym/VendorReview-v0", "vr-easy-01"
    rollout = Rollout(task_of(env_id, task_id))
    path = gold(env_id, task_id)
    results = rollout.play([*path, path[0]])
    trace = rollout.score()
    assert results[-1].is_error and results[-1].content[0].text == server.OVER
    assert len(rollout.state.actions) == len(path)  # the late call never reached the env
    assert rollout.toolset.sessions.live == {}  # an ended episode is let go at once
    assert trace.info["officegym"]["graded_by"] == "env"
    assert run(rollout.task.episode_over(trace)) is True


def test_an_episode_the_model_left_open_is_replayed_and_graded_where_it_stands() -> None:
    env_id, task_id = "officegym/InvoiceApproval-v0", "single-1"
    rollout = Rollout(task_of(env_id, task_id))
    rollout.play(gold(env_id, task_id))
    trace = rollout.score()
    assert rollout.state.grade is None
    assert run(rollout.task.episode_over(trace)) is False
    assert (trace.info["officegym"]["graded_by"], trace.rewards["grade"].score) == ("replay", 1.0)


def test_finish_is_offered_when_asked_and_ends_the_episode_on_the_server() -> None:
    env_id, task_id = "officegym/InvoiceApproval-v0", "single-1"
    rollout = Rollout(task_of(env_id, task_id, offer_finish=True))
    assert "finish" in [tool.name for tool in rollout.tools()]
    rollout.play([*gold(env_id, task_id), {"name": "finish", "arguments": {}}])
    trace = rollout.score()
    assert (trace.info["officegym"]["graded_by"], trace.rewards["grade"].score) == ("env", 1.0)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_doing_nothing_scores_zero(env_id: str) -> None:
    trace = Rollout(next(iter(ogv.taskset(env_id)))).score()
    assert trace.rewards["grade"].score == 0.0


def test_a_bad_call_is_the_env_error_and_is_counted() -> None:
    env_id, task_id = "officegym/InvoiceApproval-v0", "single-1"
    rollout = Rollout(task_of(env_id, task_id))
    results = rollout.play([{"name": "get_invoice", "arguments": {"invoice_id": "nope"}}])
    trace = rollout.score()
    assert results[0].is_error and results[0].content[0].text.startswith("Error: ")
    assert trace.metrics["grade_invalid_calls"] == 1.0


def test_a_replay_that_diverges_is_refused_not_guessed() -> None:
    env_id, task_id = "officegym/InvoiceApproval-v0", "single-1"
    rollout = Rollout(task_of(env_id, task_id))
    rollout.play(gold(env_id, task_id))
    record = server.record_of(rollout.state)
    record.digests[2] = "0" * 16
    with pytest.raises(server.ReplayError, match="turn 3"):
        server.episode_grade(rollout.task.data, record)
    rollout.state.digests = record.digests
    with pytest.raises(vf.TaskError):
        rollout.score()


def test_an_unregistered_env_id_is_refused_with_the_ids_there_are() -> None:
    with pytest.raises(ValueError, match=r"officegym/InvoiceApproval-v0"):
        ogv.taskset("officegym/NoSuchEnv-v0")


def test_tool_arguments_that_are_not_an_object_are_told_back() -> None:
    async def never(name: str, arguments: Any) -> Any:
        raise AssertionError("a malformed call must not reach the tools")

    def call(arguments: str) -> Any:
        return {"id": "c1", "function": {"name": "whoami", "arguments": arguments}}

    assert run(ogv.run_tool_call(call('{"a": '), never)).startswith("Error: the tool arguments are not valid JSON")
    assert run(ogv.run_tool_call(call("[1]"), never)).startswith("Error: the tool arguments must be a JSON object")


def test_vf_eval_finds_the_taskset_harness_and_env_under_the_old_plugin_id(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = importlib.import_module("officegym.integrations.verifiers_officegym")
    monkeypatch.setitem(sys.modules, ogv.PLUGIN_MODULE, plugin)
    assert vf.environment_class(ogv.PLUGIN_ID) is ogv.OfficeGymEnv
    assert vf.default_harness_id(ogv.PLUGIN_ID) == ogv.PLUGIN_ID
    assert vf.task_type(ogv.PLUGIN_ID) is ogv.OfficeGymTask
    config = vf.env_config_type(ogv.PLUGIN_ID)()
    assert config.agent.runtime.type == "subprocess"


def test_a_leading_env_id_becomes_the_taskset_option() -> None:
    assert ogv.eval_arguments(["officegym/VendorReview-v0", "-n", "2"]) == [
        ogv.PLUGIN_ID,
        "--env.taskset.env-id",
        "officegym/VendorReview-v0",
        "-n",
        "2",
    ]
    assert ogv.eval_arguments([ogv.PLUGIN_ID, "-n", "2"]) == [ogv.PLUGIN_ID, "-n", "2"]


def test_without_the_extra_the_error_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "verifiers.v1", None)
    with pytest.raises(ImportError, match=r"pip install 'officegym\[verifiers\]'"):
        server.require("verifiers.v1")


def test_each_env_id_has_its_own_taskset_and_refuses_another_env() -> None:
    for env_id in ENV_IDS:
        config = ogv.env_taskset(env_id).config
        assert (config.id, config.env_id, config.split, config.sources) == (ogv.package_id(env_id), env_id, "test", 2)
        assert issubclass(ogv.env_taskset_type(env_id), ogv.OfficeGymTaskset)
        assert getattr(ogv, f"{ogv.class_prefix(env_id)}Taskset") is ogv.env_taskset_type(env_id)
    with pytest.raises(ValueError, match=r"officegym-vendor-review-v0 plays officegym/VendorReview-v0.*use officegym-"):
        ogv.env_taskset_config_type("officegym/VendorReview-v0")(env_id="officegym/VendorReview-v1")


def test_package_ids_follow_the_env_ids() -> None:
    assert ogv.package_id("officegym/InvoiceApproval-v1") == "officegym-invoice-approval-v1"
    assert ogv.package_module("officegym/VendorReview-v2") == "officegym_vendor_review_v2"
    assert ogv.class_prefix("officegym/VendorReview-v2") == "VendorReviewV2"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"split": "dev"}, "split must be 'train' or 'test'"),
        ({"sources": 0}, "sources"),
        ({"env_kwargs": {"company_seed": 7}}, "each row names its world; pick the rows with split"),
    ],
)
def test_bad_taskset_options_are_refused_with_the_fix(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ogv.taskset("officegym/InvoiceApproval-v0", **options)


def test_eval_is_read_as_test() -> None:
    assert ogv.taskset("officegym/VendorReview-v0", split="eval").config.split == "test"


def test_task_data_from_before_rows_reads_its_env_kwargs_as_the_row_text() -> None:
    data = ogv.OfficeGymData(env_id="officegym/InvoiceApproval-v0", task_id="single-1", env_kwargs={"b": 1, "a": 2})
    assert data.env_kwargs == '{"a":2,"b":1}'


def test_the_gold_check_passes_and_a_stale_row_is_an_error_not_a_pass() -> None:
    task = task_of("officegym/InvoiceApproval-v0", "batch-3")
    assert run(task.validate(None)) is True
    stale = task.with_data(prompt="Decide ER-2026-99999.")
    with pytest.raises(ValueError, match=r"rebuild the rows with officegym\.splits\.task_rows"):
        run(stale.validate(None))
