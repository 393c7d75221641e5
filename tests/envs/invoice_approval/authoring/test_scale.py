"""Company scale: bigger companies keep the task builder's guarantees, and scale 1 is the company it always was.

Generating seed 7 at 10x takes about 5 s (world 0.2 s, tasks 4-5 s), once per module; 100x (about a minute and a
half) is only measured, by ``python -m benchmarks.scale``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from officegym.envs.core.arguments import ArgumentError
from officegym.envs.invoice_approval.v0.authoring.seed_db import build_seed_db
from officegym.envs.invoice_approval.v0.authoring.traps import INDEXED_PLAN, PLAN
from officegym.envs.invoice_approval.v0.authoring.world import generate_world
from officegym.envs.invoice_approval.v0.bundle import Bundle, load_bundle
from officegym.envs.invoice_approval.v0.db import fingerprint, shipped_fingerprint
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv

SEED, SCALE = 7, 10
# seed 7 at the default scale, recorded before company_scale existed: a non-shipped seed must not drift either
SEED_7_FINGERPRINT = "9d2d2eecafc2"
FINISH = {"name": "finish", "arguments": {}}


@pytest.fixture(scope="module")
def big() -> Bundle:
    return load_bundle(SEED, None, SCALE)


def _fingerprint(seed: int, scale: int = 1) -> str:
    conn = build_seed_db(generate_world(seed, scale))
    print_ = fingerprint(conn)
    conn.close()
    return print_


def test_scale_one_is_the_company_it_always_was() -> None:
    assert _fingerprint(42) == _fingerprint(42, 1) == shipped_fingerprint()
    assert _fingerprint(SEED, 1).startswith(SEED_7_FINGERPRINT)


def test_load_bundle_has_one_entry_per_company() -> None:
    assert load_bundle() is load_bundle(42, None, 1) is load_bundle(42)


def test_seed_42_at_another_scale_is_generated() -> None:
    assert _fingerprint(42, 2) != shipped_fingerprint()


def test_counts_scale_and_every_trap_is_planted_scale_times() -> None:
    world = generate_world(SEED, SCALE)
    statuses = Counter(i.status for i in world.invoices)
    assert (len(world.suppliers), len(world.purchase_orders), len(world.invoices)) == (600, 1500, 2000)
    assert statuses["received"] == 1820 and statuses["approved"] == 130 and statuses["rejected"] == 50
    assert sum(s.is_blocked for s in world.suppliers) == 40 and len(world.approvers) == 14
    assert len({s.name for s in world.suppliers}) == 600
    assert len({i.invoice_id for i in world.invoices}) == 2000
    planted = Counter(i.trap for i in world.invoices if i.trap != "clean")
    canonical = Counter(i.trap for i in generate_world(SEED).invoices if i.trap != "clean")
    assert planted == Counter({trap: count * SCALE for trap, count in canonical.items()})
    assert {p.__name__ for p, _ in (*PLAN, *INDEXED_PLAN)} - {"resubmission", "near_duplicate"} <= set(planted)


def test_a_10x_company_keeps_the_task_guarantees(big: Bundle) -> None:
    assert big.company_scale == SCALE and big.fingerprint != shipped_fingerprint()
    assert Counter(t.tier for t in big.tasks.values()) == {"single": 20, "batch": 20, "long": 10, "hard": 10}
    for task in big.tasks.values():
        assert 3 <= len(task.wrong_actions) <= 6, task.id
        assert set(task.scope) <= {a["arguments"].get("invoice_id") for a in task.gold_actions}


def _play(env: InvoiceApprovalEnv, task_id: str, actions: list[Any]) -> float:
    env.reset(options={"task_id": task_id})
    for action in actions:
        env.step(action)
    return float(env.step(FINISH)[1])


def test_gold_paths_score_one_and_wrong_paths_zero_at_10x(big: Bundle) -> None:
    sample = [t for i, t in enumerate(big.tasks.values()) if i % 4 == 0]  # 15 tasks, every tier
    env = InvoiceApprovalEnv(company_seed=SEED, company_scale=SCALE, task_ids=[t.id for t in sample])
    assert env.bundle is big
    for task in sample:
        assert _play(env, task.id, task.gold_actions) == 1.0, task.id
        wrong = task.wrong_actions[0]
        assert _play(env, task.id, wrong["actions"]) == 0.0, (task.id, wrong["kind"])
    env.close()


@pytest.mark.parametrize("value", [0, 101, 2.5, "10", True, None])
def test_bad_scales_are_refused_in_one_line(value: Any) -> None:
    with pytest.raises(ArgumentError, match=r"^company_scale must be") as error:
        InvoiceApprovalEnv(company_scale=value)
    assert "\n" not in str(error.value)


def test_the_generator_refuses_bad_scales() -> None:
    for value in (0, 101, True):
        with pytest.raises(ValueError, match="scale must be a whole number from 1 to 100"):
            generate_world(SEED, value)
