"""The v1 books' invariants (used by the soak run and the fuzz test) hold on gold paths and catch planted damage."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.v1.invariants import check_invariants


@pytest.fixture(scope="module")
def env() -> Any:
    return gym.make("officegym/InvoiceApproval-v1", max_turns=1000)


def _after_gold(env: Any, task_id: str) -> Any:
    env.reset(options={"task_id": task_id})
    for action in env.unwrapped.gold_actions(task_id):
        env.step(action)
    return env.unwrapped


def test_every_gold_path_of_a_tier_leaves_consistent_books(env: Any) -> None:
    for task_id in [t for t in env.unwrapped.task_ids if env.unwrapped.task_tier(t) in ("batch", "hard")]:
        inner = _after_gold(env, task_id)
        assert check_invariants(inner.episode.conn, inner.bundle.template) == [], task_id


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            "INSERT INTO ledger (invoice_id, account, debit_cents, credit_cents, text) "
            "SELECT min(invoice_id), '4980', 1, 0, 'planted' FROM invoices",
            "does not balance",
        ),
        (
            "UPDATE invoices SET status = 'received' WHERE invoice_id = "
            "(SELECT min(invoice_id) FROM invoices WHERE status = 'rejected')",
            "was rejected at reset",
        ),
    ],
)
def test_planted_damage_is_reported(env: Any, damage: str, expected: str) -> None:
    inner = _after_gold(env, "batch-1")
    inner.episode.conn.execute(damage)
    assert any(expected in problem for problem in check_invariants(inner.episode.conn, inner.bundle.template))
