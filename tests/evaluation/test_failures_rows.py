"""Field-level failure rows (``evaluation/failures.py``): on gold paths with one decision changed, the rows name
exactly the fields that differ, labelled, with both values as a person reads them and the rule that decides."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.core.assets import asset_path, read_text
from officegym.envs.invoice_approval.shared.policy_rules import parse_policy, reason_codes
from officegym.evaluation.failures import COLUMNS, as_rows, failure_rows

Change = Callable[[dict[str, Any]], dict[str, Any] | None]


def played(env_id: str, task_id: str, change: Change | None = None) -> list[dict[str, str]]:
    """The failure rows after the task's gold path, each action passed through ``change`` first."""
    env = gym.make(env_id, max_turns=400)
    try:
        env.reset(options={"task_id": task_id})
        for action in env.unwrapped.gold_actions(task_id):  # type: ignore[attr-defined]
            changed = change(copy.deepcopy(action)) if change else action
            if changed is not None:
                env.step(changed)
        return failure_rows(env)
    finally:
        env.close()


def approve_instead(invoice_id: str) -> Change:
    """Approve ``invoice_id`` where the gold path rejects or holds it."""

    def change(action: dict[str, Any]) -> dict[str, Any]:
        if action["name"] in ("reject_invoice", "hold_invoice") and action["arguments"]["invoice_id"] == invoice_id:
            return {"name": "approve_invoice", "arguments": {"invoice_id": invoice_id}}
        return action

    return change


def submitted(**override: Any) -> Change:
    """The gold recommendation with some of its arguments replaced."""

    def change(action: dict[str, Any]) -> dict[str, Any]:
        if action["name"] == "submit_recommendation":
            action["arguments"].update(override)
        return action

    return change


def row(kind: str, record: str, field: str, expected: str, actual: str, rule: str) -> dict[str, str]:
    return dict(zip(COLUMNS, (kind, record, field, expected, actual, rule), strict=True))


def test_v0_approving_a_held_invoice_names_its_fields_postings_and_po() -> None:
    rule = "rule 1: Blocked supplier"
    invoice = "ER-2026-00190"
    assert played("officegym/InvoiceApproval-v0", "single-1", approve_instead(invoice)) == [
        row("invoice", invoice, "status", "on_hold", "approved", rule),
        row("invoice", invoice, "reason code", "SUPPLIER_BLOCKED", "(empty)", rule),
        row("ledger line", invoice, "account 1571", "(none)", "debit 210.36 €", rule),
        row("ledger line", invoice, "account 1600", "(none)", "credit 3,215.50 €", rule),
        row("ledger line", invoice, "account 3300", "(none)", "debit 3,005.14 €", rule),
        row("purchase order", "4500304561", "invoiced net", "451.90 €", "3,457.04 €", ""),
    ]


def test_v1_approving_a_rejected_invoice_names_its_fields_postings_and_po_line() -> None:
    rule = "rule 7: Tax"
    invoice = "ER-2026-00082"
    assert played("officegym/InvoiceApproval-v1", "single-2", approve_instead(invoice)) == [
        row("invoice", invoice, "status", "rejected", "approved", rule),
        row("invoice", invoice, "reason code", "VAT_ERROR", "(empty)", rule),
        row("ledger line", invoice, "account 1576", "(none)", "debit 41.97 €", rule),
        row("ledger line", invoice, "account 1600", "(none)", "credit 641.47 €", rule),
        row("ledger line", invoice, "account 4806", "(none)", "debit 599.50 €", rule),
        row("purchase order", "4500290989", "invoiced net", "3,597.00 €", "4,196.50 €", ""),
        row("purchase order", "4500290989", "line 1 invoiced quantity", "6", "7", ""),
    ]


def test_v1_a_mistyped_capture_is_reported_field_by_field_under_step_0() -> None:
    def mistype(action: dict[str, Any]) -> dict[str, Any]:
        if action["name"] == "capture_invoice":
            action["arguments"]["net_cents"] -= 100
            action["arguments"]["gross_cents"] -= 100
        return action

    rows = played("officegym/InvoiceApproval-v1", "single-6", mistype)
    step = "step 0: the document wins"
    assert rows[:2] == [
        row("capture", "ER-2026-00212", "net amount", "2,069.00 €", "2,068.00 €", step),
        row("capture", "ER-2026-00212", "gross amount", "2,462.11 €", "2,461.11 €", step),
    ]
    assert {r["kind"] for r in rows[2:]} == {"ledger line", "purchase order"}


def test_v1_flagging_a_met_requirement_is_one_false_flag_with_its_pass_bar() -> None:
    rows = played(
        "officegym/VendorReview-v1", "vr1-easy-01", submitted(gap_ids=["REQ-BREACH", "REQ-MDM", "REQ-SCIM", "REQ-SSO"])
    )
    bar = (
        "MUST: Sign-in through our identity provider over SAML 2.0 or OIDC, and an administrator can switch local "
        "password login off for every account."
    )
    assert rows == [row("false flag", "REQ-SSO", "flagged", "not flagged (it is met)", "flagged as a gap", bar)]


def test_v1_leaving_out_a_gap_is_one_missed_gap() -> None:
    rows = played("officegym/VendorReview-v1", "vr1-easy-01", submitted(gap_ids=["REQ-BREACH", "REQ-MDM"]))
    assert [(r["kind"], r["record"], r["expected"], r["actual"]) for r in rows] == [
        ("missed gap", "REQ-SCIM", "flagged as a gap", "not flagged")
    ]
    assert rows[0]["rule"].startswith("MUST: Users are created, updated and deactivated from our identity provider")


def test_v2_a_false_flag_and_a_wrong_decision() -> None:
    rows = played("officegym/VendorReview-v2", "vr2-easy-01", submitted(gap_ids=["REQ-TLS"]))
    bar = "SHOULD: Lowest accepted TLS version on every public endpoint: TLS 1.2 or newer."
    assert rows == [row("false flag", "REQ-TLS", "flagged", "not flagged (it is met)", "flagged as a gap", bar)]
    rule = "the decision rule (unmet requirements: none)"
    assert played("officegym/VendorReview-v2", "vr2-easy-01", submitted(decision="no-go")) == [
        row("wrong decision", "recommendation", "decision", "go", "no-go", rule)
    ]


def test_skipping_a_core_document_is_an_unread_document() -> None:
    env_id, task_id = "officegym/VendorReview-v2", "vr2-easy-01"
    env = gym.make(env_id)
    first_read = next(a for a in env.unwrapped.gold_actions(task_id) if a["name"] == "read_doc")  # type: ignore[attr-defined]
    env.close()
    rows = played(env_id, task_id, lambda action: None if action == first_read else action)
    assert [(r["kind"], r["field"], r["expected"], r["actual"]) for r in rows] == [
        ("unread document", "read before submitting", "read", "not read")
    ]
    assert rows[0]["record"] == first_read["arguments"]["doc_id"]


@pytest.mark.parametrize(
    ("env_id", "task_id"),
    [
        ("officegym/InvoiceApproval-v0", "batch-3"),
        ("officegym/InvoiceApproval-v1", "single-6"),
        ("officegym/VendorReview-v1", "vr1-easy-01"),
        ("officegym/VendorReview-v2", "vr2-easy-01"),
    ],
)
def test_full_marks_give_no_rows(env_id: str, task_id: str) -> None:
    assert played(env_id, task_id) == []


def test_every_reason_code_of_both_policies_has_its_rule() -> None:
    for version, approve, escalate in (("v0", 7, 6), ("v1", 9, 8)):
        rules = parse_policy(read_text(asset_path("invoice_approval", version, "policy.md")))
        codes = reason_codes(rules)
        assert len(codes) >= 6 and all(rules.for_outcome("rejected", code).startswith("rule ") for code in codes)
        assert rules.for_outcome("approved", None).startswith(f"rule {approve}: Otherwise approve")
        assert rules.for_outcome("escalated", None).startswith(f"rule {escalate}: Approval limit")
        assert rules.for_outcome("received", None) == ""


def test_rows_of_an_older_results_file_read_in_the_new_format() -> None:
    legacy = [{"kind": "invoice", "item": "ER-1", "expected": "approved", "actual": "rejected"}]
    assert as_rows(legacy) == [row("invoice", "ER-1", "", "approved", "rejected", "")]
    assert as_rows(None) == [] == as_rows({"kind": "invoice"}) == as_rows(["not a row"])


def test_an_env_without_a_report_gives_no_rows() -> None:
    assert failure_rows(object()) == []
