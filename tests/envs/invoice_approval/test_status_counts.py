"""The per-status invoice counts behind ``list_invoices``'s "total" always equal the books."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.v0.status_counts import COUNTS, status_count, status_count_problems

from ...conftest import episode_conn

STATUSES = ("received", "approved", "rejected", "on_hold", "escalated")


def _totals(env: Any) -> dict[str, int]:
    """What ``list_invoices`` reports for each status, through ``env.step``."""
    totals = {}
    for status in STATUSES:
        observation = env.step({"name": "list_invoices", "arguments": {"status": status, "limit": 1}})[0]
        totals[status] = json.loads(observation)["total"]
    return totals


def _books(env: Any) -> dict[str, int]:
    conn = episode_conn(env)
    return {s: conn.execute("SELECT COUNT(*) FROM invoices WHERE status = ?", (s,)).fetchone()[0] for s in STATUSES}


@pytest.fixture()
def env() -> Any:
    made: Any = gym.make("officegym/InvoiceApproval-v0", max_turns=10_000)
    made.reset(options={"task_id": "long-1"})
    return made


def test_the_template_and_a_whole_gold_path_keep_exact_counts(env: Any) -> None:
    assert status_count_problems(episode_conn(env)) == []
    assert _totals(env) == _books(env)
    for action in env.unwrapped.bundle.tasks["long-1"].gold_actions:
        env.step(action)
    assert status_count_problems(episode_conn(env)) == []
    assert _totals(env) == _books(env)
    assert _books(env)["approved"] > 0  # the path decided invoices, so the counts moved


def test_inserts_deletes_and_status_changes_by_raw_sql_are_counted(env: Any) -> None:
    conn = episode_conn(env)
    conn.execute("PRAGMA defer_foreign_keys=ON")
    conn.execute("CREATE TEMP TABLE copy AS SELECT * FROM invoices WHERE status = 'received' LIMIT 1")
    conn.execute("UPDATE copy SET invoice_id = 'ER-2026-09999', status = 'escalated'")
    conn.execute("INSERT INTO invoices SELECT * FROM copy")
    conn.execute("DELETE FROM invoices WHERE invoice_id NOT IN (SELECT invoice_id FROM ledger) AND status = 'rejected'")
    conn.execute("UPDATE invoices SET status = 'on_hold' WHERE invoice_id = (SELECT min(invoice_id) FROM invoices)")
    conn.execute("UPDATE invoices SET description = 'not a status change'")
    assert status_count_problems(conn) == []
    assert status_count(conn, "escalated") >= 1 and status_count(conn, "no such status") == 0
    assert _totals(env) == _books(env)


def test_a_failed_tool_call_and_a_reset_leave_the_counts_as_they_were(env: Any) -> None:
    before = _books(env)
    received = episode_conn(env).execute("SELECT min(invoice_id) FROM invoices WHERE status = 'received'").fetchone()
    observation = env.step({"name": "reject_invoice", "arguments": {"invoice_id": received[0], "reason_code": "NOPE"}})
    assert observation[0].startswith("Error")
    assert _totals(env) == before
    env.step({"name": "hold_invoice", "arguments": {"invoice_id": received[0], "reason_code": "PO_EXCEEDED"}})
    assert _totals(env)["on_hold"] == before["on_hold"] + 1
    env.reset(options={"task_id": "long-1"})
    assert _totals(env) == before and status_count_problems(episode_conn(env)) == []


def test_a_wrong_count_is_reported(env: Any) -> None:
    conn = episode_conn(env)
    conn.execute(f"UPDATE {COUNTS} SET n = n + 1 WHERE status = 'received'")
    assert status_count_problems(conn) == [
        f"received: {_books(env)['received'] + 1} invoices counted, {_books(env)['received']} in the books"
    ]
