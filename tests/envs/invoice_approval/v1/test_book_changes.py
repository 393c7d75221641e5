"""v1 grades from the episode's changes exactly as from the whole books (see ``book_changes.py``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.shared.grading import compare
from officegym.envs.invoice_approval.v1.grading import book_state, failure_report
from officegym.policies import RandomPolicy


@pytest.fixture(scope="module")
def env() -> Any:
    return gym.make("officegym/InvoiceApproval-v1", max_turns=1000)


def _whole_books(env: Any) -> tuple[Any, Any, Any]:
    inner = env.unwrapped
    task = inner.bundle.tasks[inner.episode.task_id]
    return book_state(inner.episode.conn), inner.bundle.gold_state(task.id), task.scope


def _assert_same(env: Any) -> None:
    inner = env.unwrapped
    whole, changes = _whole_books(env), inner._graded_states(inner.episode)
    assert compare(*changes) == compare(*whole)
    assert failure_report(*changes) == failure_report(*whole)


def test_gold_and_wrong_paths_grade_as_the_whole_books(env: Any) -> None:
    """Every task's gold path and every wrong path, compared after the last step (and after every step of the
    gold paths of the batch tier, where POs, credit notes and captures change on the way)."""
    inner = env.unwrapped
    for task in inner.bundle.tasks.values():
        for number, actions in enumerate([list(task.gold_actions), *(list(w["actions"]) for w in task.wrong_actions)]):
            env.reset(options={"task_id": task.id})
            for action in actions:
                env.step(action)
                if number == 0 and task.tier == "batch":
                    _assert_same(env)
            _assert_same(env)


def test_random_episodes_and_forks_grade_as_the_whole_books(env: Any) -> None:
    policy = RandomPolicy(seed=5, id_patterns=env.unwrapped.ID_PATTERNS)
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        policy.reset(obs, info)
        for step in range(25):
            obs, _, terminated, truncated, _ = env.step(policy.act(obs))
            if terminated or truncated:
                break
            _assert_same(env)
            if step == 10:
                fork = env.unwrapped.fork()
                assert compare(*fork._graded_states(fork.episode)) == compare(*_whole_books(env))
                fork.close()


@pytest.mark.parametrize(
    "planted",
    [
        "UPDATE invoices SET credited_cents = credited_cents + 1 "
        "WHERE invoice_id = (SELECT max(invoice_id) FROM invoices)",
        "UPDATE invoices SET supplier_invoice_no = 'X' WHERE invoice_id = (SELECT min(invoice_id) FROM invoices)",
        "UPDATE po_lines SET invoiced_qty = invoiced_qty + 1 WHERE rowid = (SELECT min(rowid) FROM po_lines)",
        "UPDATE purchase_orders SET status = 'closed' WHERE po_number = (SELECT max(po_number) FROM purchase_orders)",
        "DELETE FROM ledger WHERE line_id = (SELECT min(line_id) FROM ledger)",
    ],
)
def test_a_change_planted_outside_the_tools_is_caught(env: Any, planted: str) -> None:
    task = env.unwrapped.bundle.tasks["batch-1"]
    env.reset(options={"task_id": task.id})
    for action in task.gold_actions:
        env.step(action)
    inner = env.unwrapped
    assert compare(*inner._graded_states(inner.episode)).reward == 1.0
    conn = inner.episode.conn
    conn.execute("PRAGMA defer_foreign_keys=ON")  # inside the episode's transaction; foreign_keys=OFF would be a no-op
    conn.execute(planted)
    grade = compare(*inner._graded_states(inner.episode))
    assert grade.reward == 0.0
    assert grade == compare(*_whole_books(env))
