"""Grading from the episode's changes (``book_changes.py``) gives exactly what grading the whole books gives.

The grader reads only what the change logs name, so these tests check it against the whole-books comparison on
every gold and wrong path, on seeded random episodes and on forks, and that a change planted with raw SQL in a
record no tool touched is still caught (the exact-state guarantee).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.shared.grading import compare
from officegym.envs.invoice_approval.v0.grading import book_state, failure_report
from officegym.policies import RandomPolicy

ENV_ID = "officegym/InvoiceApproval-v0"


@pytest.fixture(scope="module")
def env() -> Any:
    return gym.make(ENV_ID, max_turns=400)


def _whole_books(env: Any) -> tuple[Any, Any, Any]:
    inner = env.unwrapped
    task = inner.bundle.tasks[inner.episode.task_id]
    return book_state(inner.episode.conn), inner.bundle.gold_state(task.id), task.scope


def _assert_same_as_whole_books(env: Any) -> None:
    inner = env.unwrapped
    whole = _whole_books(env)
    changes = inner._graded_states(inner.episode)
    assert compare(*changes) == compare(*whole)
    assert failure_report(*changes) == failure_report(*whole)
    assert inner.progress() == _progress_from(whole, inner)


def _progress_from(whole: tuple[Any, Any, Any], inner: Any) -> dict[str, float]:
    from officegym.envs.invoice_approval.shared.progress import InvoiceProgress

    return InvoiceProgress(inner.episode, lambda: whole).measures(inner.stats)


def test_every_gold_and_wrong_path_grades_as_the_whole_books(env: Any) -> None:
    paths = 0
    for task in env.unwrapped.bundle.tasks.values():
        for actions in [list(task.gold_actions), *(list(w["actions"]) for w in task.wrong_actions)]:
            env.reset(options={"task_id": task.id})
            _assert_same_as_whole_books(env)
            for action in actions:
                env.step(action)
                _assert_same_as_whole_books(env)
            paths += 1
    assert paths > 300


def test_random_episodes_and_their_forks_grade_as_the_whole_books(env: Any) -> None:
    policy = RandomPolicy(seed=3, id_patterns=env.unwrapped.ID_PATTERNS)
    for episode in range(40):
        obs, info = env.reset(seed=episode)
        policy.reset(obs, info)
        for step in range(30):
            result = env.step(policy.act(obs))
            obs = result[0]
            if result[2] or result[3]:
                break
            if step == 10:
                fork = env.unwrapped.fork()
                assert compare(*fork._graded_states(fork.episode)) == compare(*_whole_books(env))
                fork.close()
            _assert_same_as_whole_books(env)


@pytest.mark.parametrize(
    "planted",
    [
        "UPDATE invoices SET status = 'approved' WHERE invoice_id = (SELECT max(invoice_id) FROM invoices)",
        "UPDATE invoices SET assigned_to = 'AP-999' WHERE invoice_id = (SELECT min(invoice_id) FROM invoices)",
        "DELETE FROM invoices WHERE invoice_id NOT IN (SELECT invoice_id FROM ledger) "
        "AND invoice_id = (SELECT max(invoice_id) FROM invoices WHERE status = 'rejected')",
        "UPDATE purchase_orders SET net_invoiced_cents = net_invoiced_cents + 1 "
        "WHERE po_number = (SELECT min(po_number) FROM purchase_orders)",
        "UPDATE ledger SET debit_cents = debit_cents + 1 WHERE line_id = (SELECT min(line_id) FROM ledger "
        "WHERE debit_cents > 0)",
        "DELETE FROM ledger WHERE line_id = (SELECT max(line_id) FROM ledger)",
        "INSERT INTO ledger (invoice_id, account, debit_cents, credit_cents, text) "
        "SELECT min(invoice_id), '4980', 1, 0, 'planted' FROM invoices",
    ],
)
def test_a_change_planted_outside_the_tools_is_caught(env: Any, planted: str) -> None:
    """After a whole gold path (reward 1.0), one raw-SQL change to a record no tool touched fails the grade."""
    task = env.unwrapped.bundle.tasks["long-1"]
    env.reset(options={"task_id": task.id})
    for action in task.gold_actions:
        env.step(action)
    inner = env.unwrapped
    assert compare(*inner._graded_states(inner.episode)).reward == 1.0
    conn = inner.episode.conn
    conn.execute("PRAGMA defer_foreign_keys=ON")  # inside the episode's transaction; foreign_keys=OFF would be a no-op
    conn.execute(planted)
    assert conn.total_changes > 0
    grade = compare(*inner._graded_states(inner.episode))
    assert grade.reward == 0.0
    assert grade == compare(*_whole_books(env))
    assert failure_report(*inner._graded_states(inner.episode))


def test_a_reset_starts_from_empty_logs(env: Any) -> None:
    task = env.unwrapped.bundle.tasks["batch-1"]
    env.reset(options={"task_id": task.id})
    for action in task.gold_actions:
        env.step(action)
    env.reset(options={"task_id": task.id})
    conn = env.unwrapped.episode.conn
    assert conn.execute("SELECT count(*) FROM ledger_changes").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM record_changes").fetchone() == (0,)
