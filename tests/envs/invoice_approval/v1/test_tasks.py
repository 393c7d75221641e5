"""The shipped v1 tasks: counts per tier, every trap kind alone in the single tier (beside a plain control), every
gold path scores 1.0 through ``env.step`` and every wrong path less, and the assets equal a fresh generation."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import Any

import gymnasium as gym
import pytest

import officegym  # noqa: F401
from officegym.envs.invoice_approval.shared.tasks import Task
from officegym.envs.invoice_approval.v1.authoring.generate import generate
from officegym.envs.invoice_approval.v1.authoring.task_builder import CONTROLS, NOT_SINGLE, trap_of
from officegym.envs.invoice_approval.v1.authoring.traps import PLANTERS
from officegym.envs.invoice_approval.v1.bundle import Bundle, load_bundle
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


def hidden(bundle: Bundle, columns: str) -> dict[str, tuple[Any, ...]]:
    """Columns of every document of the bundle's seed DB by invoice ID (hidden ones included: trap, intended)."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(bundle.seed_bytes)
    rows = {row[0]: tuple(row[1:]) for row in conn.execute(f"SELECT invoice_id, {columns} FROM invoices")}
    conn.close()
    return rows


def singles(bundle: Bundle) -> list[Task]:
    return [task for task in bundle.tasks.values() if task.tier == "single"]


def decisions(task: Task) -> dict[str, tuple[str, str | None]]:
    return {
        a["arguments"]["invoice_id"]: (a["name"], a["arguments"].get("reason_code"))
        for a in task.gold_actions
        if a["name"] in ("approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice")
    }


def test_every_trap_kind_is_a_single_task_alone_next_to_a_plain_control() -> None:
    """Each single task is one trap and one control (clean, blocked supplier or missing PO); every planted kind
    is the trap of exactly one single task, and the two documents decide differently."""
    bundle = load_bundle()
    kinds = {iid: row[0] for iid, row in hidden(bundle, "trap").items()}
    assert all(len(t.scope) == 2 for t in singles(bundle))
    traps = [trap_of(t.scope, kinds) for t in singles(bundle)]
    controls = [next(iid for iid in t.scope if iid != trap) for t, trap in zip(singles(bundle), traps, strict=True)]
    trap_kinds = Counter(kinds[iid] for iid in traps)
    planted = {p.__name__ for p in PLANTERS}
    assert planted <= set(trap_kinds) | {"resubmission"}  # the resubmission pair is two kinds of its own
    assert not set(trap_kinds) & NOT_SINGLE and max(trap_kinds.values()) == 1
    assert {kinds[iid] for iid in controls} == set(CONTROLS)  # every control kind is used
    for task, trap, control in zip(singles(bundle), traps, controls, strict=True):
        decided = decisions(task)
        assert decided[control] == CONTROLS[kinds[control]] != decided[trap], task.id
    assert len({t.scope[0] in traps for t in singles(bundle)}) == 2  # the trap comes first in some, second in others


def test_trap_and_control_never_share_a_supplier_or_a_po() -> None:
    bundle = load_bundle()
    rows = hidden(bundle, "supplier_id, po_number, trap")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(bundle.seed_bytes)
    printed = {
        iid: json.loads(body).get("po_number") for iid, body in conn.execute("SELECT invoice_id, body FROM documents")
    }
    conn.close()
    for task in singles(bundle):
        first, second = (rows[iid] for iid in task.scope)
        assert first[0] != second[0], task.id
        pos = [{p for p in (rows[iid][1], printed.get(iid)) if p} for iid in task.scope]
        assert not pos[0] & pos[1], task.id


def test_single_tier_has_approve_answers() -> None:
    """Traps whose right answer is approve are tested alone (beside a control that is not approved)."""
    bundle = load_bundle()
    kinds = {iid: row[0] for iid, row in hidden(bundle, "trap").items()}
    approved = [t.id for t in singles(bundle) if decisions(t)[trap_of(t.scope, kinds)][0] == "approve_invoice"]
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
    from officegym.envs.core.assets import asset_path

    conn = sqlite3.connect(":memory:")
    conn.deserialize(load_bundle().seed_bytes)
    received = {row[0] for row in conn.execute("SELECT invoice_id FROM invoices WHERE status = 'received'")}
    folder = asset_path("invoice_approval", "v1", "documents")
    assert {p.stem for p in folder.glob("*.pdf")} == received
    assert all((folder / f"{iid}.pdf").read_bytes().startswith(b"%PDF") for iid in sorted(received)[:5])
