"""ProgressDiagnostics and the envs' progress(): stable keys on every step, agreement with the final grade,
per-episode summaries that stack with RecordEpisodeStatistics, and a cache that never goes stale."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest
from gymnasium.wrappers import RecordEpisodeStatistics
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from officegym.envs.invoice_approval.shared.progress import PROGRESS_KEYS as INVOICE_KEYS
from officegym.envs.invoice_approval.shared.progress import book_measures
from officegym.envs.invoice_approval.v0.grading import book_state
from officegym.envs.vendor_review.shared.progress import PROGRESS_KEYS as VENDOR_KEYS
from officegym.wrappers.diagnostics import ProgressDiagnostics

from ..conftest import tool_env
from ..strategies import INVOICE_READS, INVOICE_WRITES, MALFORMED, VENDOR_CALLS

INVOICE = "officegym/InvoiceApproval-v0"
VENDOR = "officegym/VendorReview-v0"
FINISH = {"name": "finish", "arguments": {}}
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
INVOICE_ENV = ProgressDiagnostics(gym.make(INVOICE, max_turns=10_000))
VENDOR_ENV = ProgressDiagnostics(gym.make(VENDOR, max_turns=10_000))


def play(env: gym.Env[Any, Any], task_id: str, actions: list[Any]) -> list[dict[str, Any]]:
    """Reset to ``task_id``, play ``actions`` (stopping at the end), return the reset info and every step info."""
    _, info = env.reset(seed=0, options={"task_id": task_id})
    infos = [info]
    for action in actions:
        *_, terminated, truncated, info = env.step(action)
        infos.append(info)
        if terminated or truncated:
            break
    return infos


def decision(name: str, invoice_id: str, **extra: str) -> dict[str, Any]:
    return {"name": name, "arguments": {"invoice_id": invoice_id, **extra}}


# ---------------------------------------------------------------------------------------- stable keys
@SETTINGS
@given(
    task=st.sampled_from(["single-3", "batch-2", "hard-4"]),
    actions=st.lists(st.one_of(INVOICE_WRITES, INVOICE_READS, MALFORMED), max_size=20),
)
def test_invoice_progress_is_in_info_on_every_step_under_stable_keys(task: str, actions: list[Any]) -> None:
    infos = play(INVOICE_ENV, task, [*actions, FINISH])
    for info in infos:
        assert tuple(info["progress"]) == INVOICE_KEYS
        assert all(isinstance(v, float) for v in info["progress"].values())
    assert infos[0]["progress"]["turns"] == 0.0 and infos[-1]["progress"]["turns"] == len(infos) - 1


@SETTINGS
@given(actions=st.lists(st.one_of(VENDOR_CALLS, MALFORMED), max_size=12))
def test_vendor_progress_is_in_info_on_every_step_under_stable_keys(actions: list[Any]) -> None:
    infos = play(VENDOR_ENV, "vr-hard-01", [*actions, FINISH])
    for info in infos:
        assert tuple(info["progress"]) == VENDOR_KEYS
    assert [i["progress"]["turns"] for i in infos] == [float(n) for n in range(len(infos))]


# ---------------------------------------------------------------------------------------- agreement with the grade
def test_invoice_progress_follows_the_gold_path_and_ends_at_the_grade() -> None:
    env = INVOICE_ENV
    gold = tool_env(env).gold_actions("batch-1")
    infos = play(env, "batch-1", [*gold, FINISH])
    decided = [i["progress"]["invoices_decided"] for i in infos]
    assert decided[0] == 0.0 and decided[-1] == 3.0 and decided == sorted(decided)
    last = infos[-1]
    assert last["progress"]["decided_correctly"] == 3.0 and last["progress"]["decided_wrongly"] == 0.0
    assert last["progress"]["reward"] == last["grade"]["reward"] == 1.0
    assert infos[0]["progress"]["ledger_mismatches"] > 0  # the gold path still has an approval to post
    for key in ("collateral_changes", "po_mismatches", "ledger_mismatches", "invalid_calls"):
        assert last["progress"][key] == last["grade"][key] == 0.0
    assert last["progress"]["turns"] == last["grade"]["turns"] == len(gold) + 1


def test_invoice_progress_counts_wrong_decisions_collateral_and_invalid_calls() -> None:
    env = INVOICE_ENV
    infos = play(
        env,
        "single-14",
        [
            decision("approve_invoice", "ER-2026-00136"),  # gold: reject VAT_ERROR
            decision("approve_invoice", "ER-2026-00027"),  # not in the work order
            {"name": "get_invoice", "arguments": {"invoice_id": "nope"}},
            FINISH,
        ],
    )
    progress, grade = infos[-1]["progress"], infos[-1]["grade"]
    assert progress["decided_wrongly"] == 1.0 and progress["decided_correctly"] == 0.0
    assert progress["collateral_changes"] == grade["collateral_changes"] == 1.0
    assert progress["ledger_mismatches"] == grade["ledger_mismatches"] == 6.0  # 2 approvals x 3 lines
    assert progress["invalid_calls"] == grade["invalid_calls"] == 1.0
    assert infos[1]["progress"]["decided_wrongly"] == 1.0  # seen at the decision, not only at the end


def test_vendor_progress_components_are_the_grade_at_submission() -> None:
    env = VENDOR_ENV
    scenario = tool_env(env).scenario("vr-hard-01")
    reads = [{"name": "read_doc", "arguments": {"doc_id": d}} for d in scenario.core_documents[:2]]
    submit = {
        "name": "submit_recommendation",
        "arguments": {"decision": scenario.decision, "gap_ids": [scenario.gap_ids[0]], "rationale": "r"},
    }
    infos = play(env, "vr-hard-01", [*reads, {"name": "search_docs", "arguments": {"query": "offline"}}, submit])
    assert [i["progress"]["core_docs_read"] for i in infos] == [0.0, 1.0, 2.0, 2.0, 2.0]
    assert infos[3]["progress"]["searches"] == 1.0 and infos[3]["progress"]["reward"] == 0.0
    last = infos[-1]
    for key in ("reward_gaps", "reward_decision", "reward_process", "reward"):
        assert last["progress"][key] == pytest.approx(last["grade"][key])
    assert last["progress"]["submitted"] == 1.0 and last["progress"]["reward_process"] == 0.0


# ---------------------------------------------------------------------------------------- the progress cache
@SETTINGS
@given(
    task=st.sampled_from(["single-1", "batch-3", "long-2"]),
    actions=st.lists(st.one_of(INVOICE_WRITES, INVOICE_READS), min_size=1, max_size=15),
)
def test_cached_invoice_progress_equals_a_fresh_computation_after_every_step(task: str, actions: list[Any]) -> None:
    env = INVOICE_ENV
    inner: Any = env.unwrapped
    env.reset(options={"task_id": task})
    for action in actions:
        env.step(action)
        fresh = book_measures(
            book_state(inner.episode.conn), inner.bundle.gold_state(task), inner.bundle.tasks[task].scope
        )
        cached = inner.progress()
        assert {k: cached[k] for k in fresh} == fresh


def test_progress_before_reset_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        gym.make(INVOICE).unwrapped.progress()  # type: ignore[attr-defined]


def test_an_env_without_progress_is_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="progress"):
        ProgressDiagnostics(gym.make("CartPole-v1"))


# ---------------------------------------------------------------------------------------- episode summaries
def test_summary_at_the_end_only_and_reset_clears_the_episode() -> None:
    env = ProgressDiagnostics(gym.make(INVOICE, tier="single", max_turns=10), buffer_length=2)
    gold = tool_env(env).gold_actions("single-1")
    infos = play(env, "single-1", [gold[-1], FINISH])  # the decision alone is enough: the grade is the books
    assert all("episode_diagnostics" not in i for i in infos[:-1])
    summary = infos[-1]["episode_diagnostics"]
    assert (summary["r"], summary["l"], summary["success"], summary["decided_correctly"]) == (1.0, 2, 1.0, 1.0)
    truncated = play(env, "single-1", [{"name": "whoami", "arguments": {}}] * 12)  # max_turns=10 truncates
    assert truncated[-1]["episode_diagnostics"] == {**truncated[-1]["progress"], "r": 0.0, "l": 10, "success": 0.0}
    assert [s["success"] for s in env.summaries] == [1.0, 0.0]
    play(env, "single-2", [FINISH])
    assert len(env.summaries) == 2 and env.summaries[-1]["l"] == 1  # a bounded deque, like the Gymnasium one


def test_stepping_a_finished_episode_adds_no_second_summary() -> None:
    env = ProgressDiagnostics(gym.make(INVOICE, tier="single"))
    play(env, "single-1", [FINISH])
    *_, info = env.step(FINISH)
    assert "episode_diagnostics" not in info and len(env.summaries) == 1


@pytest.mark.parametrize("outer", [True, False])
def test_stacks_with_record_episode_statistics_in_either_order(outer: bool) -> None:
    base = gym.make(INVOICE, tier="single")
    env: gym.Env[Any, Any] = (
        RecordEpisodeStatistics(ProgressDiagnostics(base))
        if outer
        else ProgressDiagnostics(RecordEpisodeStatistics(base))
    )
    gold = base.unwrapped.gold_actions("single-5")  # type: ignore[attr-defined]
    info = play(env, "single-5", [*gold, FINISH])[-1]
    assert info["episode"]["r"] == info["episode_diagnostics"]["r"] == 1.0
    assert info["episode"]["l"] == info["episode_diagnostics"]["l"] == len(gold) + 1


def test_sync_vector_env_batches_the_progress() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: ProgressDiagnostics(gym.make(INVOICE, tier="single"))] * 2)
    _, info = envs.reset(seed=3)
    assert set(INVOICE_KEYS) <= set(info["progress"]) and info["progress"]["turns"].tolist() == [0.0, 0.0]
    _, _, terminated, _, info = envs.step(({"name": "whoami", "arguments": {}}, FINISH))
    assert terminated.tolist() == [False, True] and info["_episode_diagnostics"].tolist() == [False, True]
    envs.close()
