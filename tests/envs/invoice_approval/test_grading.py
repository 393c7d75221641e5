"""The failure report: where a failed InvoiceApproval episode went wrong, invoice by invoice."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv


def played(task_id: str, actions: list[dict[str, Any]]) -> InvoiceApprovalEnv:
    env = gym.make("officegym/InvoiceApproval-v0", max_turns=400)
    env.reset(options={"task_id": task_id})
    for action in actions:
        env.step(action)
    inner: InvoiceApprovalEnv = env.unwrapped  # type: ignore[assignment]
    return inner


def test_approving_a_blocked_suppliers_invoice_names_the_invoice_the_hold_and_the_postings() -> None:
    report = played("single-1", [{"name": "approve_invoice", "arguments": {"invoice_id": "ER-2026-00190"}}])
    report_rows = played("single-1", []).failure_report()
    assert report_rows == [
        {"kind": "invoice", "item": "ER-2026-00190", "expected": "on_hold SUPPLIER_BLOCKED", "actual": "received"}
    ]
    rows = report.failure_report()
    assert rows[0] == {
        "kind": "invoice",
        "item": "ER-2026-00190",
        "expected": "on_hold SUPPLIER_BLOCKED",
        "actual": "approved",
    }
    ledger = [row for row in rows if row["kind"] == "ledger"]
    assert len(ledger) == 3 and all(row["expected"] == "no such line" for row in ledger)
    assert all(row["item"] == "ER-2026-00190" for row in ledger)


def test_a_decision_outside_the_work_order_is_reported_as_collateral() -> None:
    gold = played("single-3", []).bundle.tasks["single-3"].gold_actions
    outside = {"name": "hold_invoice", "arguments": {"invoice_id": "ER-2026-00190", "reason_code": "SUPPLIER_BLOCKED"}}
    rows = played("single-3", [*gold, outside]).failure_report()
    assert rows == [
        {"kind": "collateral", "item": "ER-2026-00190", "expected": "received", "actual": "on_hold SUPPLIER_BLOCKED"}
    ]


def test_the_report_is_empty_exactly_on_the_gold_books() -> None:
    env = played("batch-3", [])
    assert len(env.failure_report()) > 3
    for action in env.gold_actions("batch-3"):
        env.step(action)
    assert env.failure_report() == []
