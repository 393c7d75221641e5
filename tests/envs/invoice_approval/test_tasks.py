"""Every task: gold through env.step scores 1.0, every wrong path 0.0; doing nothing, approving everything
and deciding in listed order fail where the tasks are built for it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.v0.authoring.task_builder import SINGLE_KINDS
from officegym.envs.invoice_approval.v0.bundle import load_bundle

BUNDLE = load_bundle()
TASK_IDS = list(BUNDLE.tasks)
WRONG = [(t.id, k) for t in BUNDLE.tasks.values() for k in range(len(t.wrong_actions))]
FINISH = {"name": "finish", "arguments": {}}


@pytest.fixture(scope="module")
def env() -> Any:
    environment = gym.make("officegym/InvoiceApproval-v0")
    yield environment
    environment.close()


def play(env: Any, task_id: str, actions: list[dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    env.reset(seed=0, options={"task_id": task_id})
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        assert not (terminated or truncated)
    _, reward, terminated, _, info = env.step(FINISH)
    assert terminated
    return float(reward), info["grade"]


def test_task_counts_and_sizes() -> None:
    tiers = Counter(t.tier for t in BUNDLE.tasks.values())
    assert tiers == {"single": 20, "batch": 20, "long": 10, "hard": 10}
    sizes = {"single": (1, 1), "batch": (3, 10), "long": (15, 23), "hard": (12, 15)}
    for task in BUNDLE.tasks.values():
        low, high = sizes[task.tier]
        assert low <= len(task.scope) <= high, task.id
        assert len(set(task.scope)) == len(task.scope)
        assert 3 <= len(task.wrong_actions) <= 6, task.id
        assert len(task.gold_actions) <= 200
        assert task.actor in task.work_order and all(i in task.work_order for i in task.scope)


def test_single_tasks_cover_distinct_traps_and_are_never_clean(world: Any) -> None:
    traps = {i.invoice_id: i.trap for i in world.invoices}
    singles = [t for t in BUNDLE.tasks.values() if t.tier == "single"]
    assert sorted(traps[t.scope[0]] for t in singles) == sorted(SINGLE_KINDS)


def test_hard_tasks_act_as_non_teamleiter(world: Any) -> None:
    roles = {a.approver_id: a.role for a in world.approvers}
    assert all(roles[t.actor] != "Teamleiter" for t in BUNDLE.tasks.values() if t.tier == "hard")
    assert len({roles[t.actor] for t in BUNDLE.tasks.values()}) == 4


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_gold_scores_one(env: Any, task_id: str) -> None:
    reward, grade = play(env, task_id, BUNDLE.tasks[task_id].gold_actions)
    assert reward == 1.0 and grade["state_matches"] == 1.0 and grade["scope_correct"] == 1.0


@pytest.mark.parametrize("task_id, k", WRONG)
def test_wrong_path_scores_zero(env: Any, task_id: str, k: int) -> None:
    reward, _ = play(env, task_id, BUNDLE.tasks[task_id].wrong_actions[k]["actions"])
    assert reward == 0.0


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_doing_nothing_and_approving_everything_fail(env: Any, task_id: str) -> None:
    assert play(env, task_id, [])[0] == 0.0
    approve_all = [{"name": "approve_invoice", "arguments": {"invoice_id": i}} for i in BUNDLE.tasks[task_id].scope]
    assert play(env, task_id, approve_all)[0] == 0.0


@pytest.mark.parametrize("task_id", [t.id for t in BUNDLE.tasks.values() if t.tier in ("long", "hard")])
def test_listed_order_fails_every_long_and_hard_task(env: Any, task_id: str) -> None:
    kinds = [w["kind"] for w in BUNDLE.tasks[task_id].wrong_actions]
    assert "listed_order" in kinds
    wrong = BUNDLE.tasks[task_id].wrong_actions[kinds.index("listed_order")]["actions"]
    assert play(env, task_id, wrong)[0] == 0.0


def test_wrong_paths_are_diverse() -> None:
    kinds = Counter(w["kind"] for t in BUNDLE.tasks.values() for w in t.wrong_actions)
    for kind in (
        "approve_duplicate",
        "wrong_reason_code",
        "wrong_escalation_target",
        "listed_order",
        "extra_invoice",
        "missing_decision",
        "approve_all",
    ):
        assert kinds[kind] > 0, kind


def test_a_generated_company_gets_its_own_solvable_tasks() -> None:
    from officegym.envs.invoice_approval.v0.baselines import InvoiceSolverPolicy
    from officegym.policies import run_episode

    other = gym.make("officegym/InvoiceApproval-v0", company_seed=7, tier="long")
    canonical = {t.work_order for t in BUNDLE.tasks.values()}
    inner: Any = other.unwrapped
    task_ids = inner.task_ids
    assert len(task_ids) == 10
    assert not canonical & {inner.bundle.tasks[t].work_order for t in task_ids}
    for task_id in task_ids:
        assert run_episode(other, InvoiceSolverPolicy(), task_id=task_id).reward == 1.0
    other.close()


def test_tasks_of_another_company_are_refused(tmp_path: Any) -> None:
    from officegym.envs.core.assets import asset_path
    from officegym.envs.invoice_approval.v0.bundle import load_bundle as load

    foreign = tmp_path / "tasks.jsonl"
    shipped = asset_path("invoice_approval", "v0", "tasks.jsonl")
    foreign.write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ValueError, match="made for another company"):
        load(7, str(foreign))
