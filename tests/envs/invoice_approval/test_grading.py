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
    rule = "rule 1: Blocked supplier"
    assert [(row["field"], row["expected"], row["actual"], row["rule"]) for row in report_rows] == [
        ("status", "on_hold", "received", rule),
        ("reason code", "SUPPLIER_BLOCKED", "(empty)", rule),
    ]
    rows = report.failure_report()
    assert rows[0] == {
        "kind": "invoice",
        "record": "ER-2026-00190",
        "field": "status",
        "expected": "on_hold",
        "actual": "approved",
        "rule": rule,
    }
    ledger = [row for row in rows if row["kind"] == "ledger line"]
    assert len(ledger) == 3 and all(row["expected"] == "(none)" for row in ledger)
    assert all(row["record"] == "ER-2026-00190" for row in ledger)


def test_a_decision_outside_the_work_order_is_reported_as_collateral() -> None:
    gold = played("single-3", []).bundle.tasks["single-3"].gold_actions
    outside = {"name": "hold_invoice", "arguments": {"invoice_id": "ER-2026-00190", "reason_code": "SUPPLIER_BLOCKED"}}
    rows = played("single-3", [*gold, outside]).failure_report()
    assert [(row["record"], row["field"], row["expected"], row["actual"]) for row in rows] == [
        ("ER-2026-00190", "status", "received", "on_hold"),
        ("ER-2026-00190", "reason code", "(empty)", "SUPPLIER_BLOCKED"),
    ]
    assert all(row["rule"] == "not in the work order: leave it as it was" for row in rows)


def test_the_report_is_empty_exactly_on_the_gold_books() -> None:
    env = played("batch-3", [])
    assert len(env.failure_report()) > 3
    for action in env.gold_actions("batch-3"):
        env.step(action)
    assert env.failure_report() == []
