"""The shipped v1 tasks: counts per tier, every trap kind alone in the single tier, every gold path scores 1.0
through ``env.step`` and every wrong path less, and the assets equal a fresh generation."""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401
from officegym.envs.invoice_approval.v1.authoring.generate import generate
from officegym.envs.invoice_approval.v1.authoring.task_builder import NOT_SINGLE
from officegym.envs.invoice_approval.v1.authoring.traps import PLANTERS
from officegym.envs.invoice_approval.v1.bundle import load_bundle
from officegym.envs.invoice_approval.v1.db import shipped_fingerprint

ENV_ID = "officegym/InvoiceApproval-v1"
FINISH = {"name": "finish", "arguments": {}}


def play(env: gym.Env[Any, Any], task_id: str, actions: list[Any]) -> float:
    env.reset(options={"task_id": task_id})
    for action in actions:
        env.step(action)
    return float(env.step(FINISH)[1])


@pytest.fixture(scope="module")
def env() -> Any:
    made = gym.make(ENV_ID)
    yield made
    made.close()


def test_at_least_100_tasks_over_four_tiers() -> None:
    tiers = Counter(task.tier for task in load_bundle().tasks.values())
    assert sum(tiers.values()) >= 100
    assert tiers["single"] >= len(PLANTERS) and tiers["batch"] >= 20 and tiers["long"] >= 10 and tiers["hard"] >= 10


def test_every_trap_kind_is_a_single_task_alone() -> None:
    bundle = load_bundle()
    single_ids = {task.scope[0] for task in bundle.tasks.values() if task.tier == "single"}
    assert all(len(t.scope) == 1 for t in bundle.tasks.values() if t.tier == "single")
    planted = {p.__name__ for p in PLANTERS}
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.deserialize(bundle.seed_bytes)
    kinds = dict(conn.execute("SELECT invoice_id, trap FROM invoices").fetchall())
    single_kinds = {kinds[iid] for iid in single_ids}
    assert planted <= single_kinds | {"resubmission"}  # the resubmission pair is two kinds of its own
    assert not single_kinds & NOT_SINGLE
    labels = Counter(kinds[iid] for iid in single_ids)
    assert max(labels.values()) == 1


def test_single_tier_has_approve_answers() -> None:
    singles = [t for t in load_bundle().tasks.values() if t.tier == "single"]
    approved = [t.id for t in singles if any(a["name"] == "approve_invoice" for a in t.gold_actions)]
    assert len(approved) >= 10


def test_every_gold_path_scores_full_marks_and_every_wrong_path_less(env: gym.Env[Any, Any]) -> None:
    tasks = load_bundle().tasks
    for task_id, task in tasks.items():
        assert play(env, task_id, task.gold_actions) == 1.0, task_id
        assert 3 <= len(task.wrong_actions) <= 6, task_id
        for wrong in task.wrong_actions:
            assert play(env, task_id, wrong["actions"]) < 1.0, (task_id, wrong["kind"])


def test_shipped_assets_equal_a_fresh_generation() -> None:
    from officegym.envs.core.assets import asset_path

    _, print_, tasks = generate()
    assert print_ == shipped_fingerprint()
    assert asset_path("invoice_approval", "v1", "tasks.jsonl").read_text(encoding="utf-8") == tasks


def test_every_received_document_of_the_shipped_company_has_its_pdf() -> None:
    import sqlite3

    from officegym.envs.core.assets import asset_path

    conn = sqlite3.connect(":memory:")
    conn.deserialize(load_bundle().seed_bytes)
    received = {row[0] for row in conn.execute("SELECT invoice_id FROM invoices WHERE status = 'received'")}
    folder = asset_path("invoice_approval", "v1", "documents")
    assert {p.stem for p in folder.glob("*.pdf")} == received
    assert all((folder / f"{iid}.pdf").read_bytes().startswith(b"%PDF") for iid in sorted(received)[:5])
