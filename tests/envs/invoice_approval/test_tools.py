"""Bad input, tool by tool: each gets an ``Error: ...`` observation and leaves the books unchanged."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

from ...conftest import dump, episode_conn

INVOICE = "ER-2026-00019"  # a received invoice
DECIDED = "ER-2026-00001"  # a history invoice


BAD_CALLS: list[tuple[str, Any, str]] = [
    ("unknown tool", {"name": "delete_invoice", "arguments": {"invoice_id": INVOICE}}, "unknown tool"),
    ("malformed json", '{"name": "get_invoice", "arguments": {', "not valid JSON"),
    ("json arguments malformed", {"name": "get_invoice", "arguments": "{oops"}, "not valid JSON"),
    ("not an object", 42, "an action is an object"),
    ("list action", [INVOICE], "an action is an object"),
    ("no name", {"arguments": {}}, "needs a tool"),
    ("finish with arguments", {"name": "finish", "arguments": {"x": 1}}, "finish takes no arguments"),
    # list_invoices
    ("list: bad status", {"name": "list_invoices", "arguments": {"status": "paid"}}, "must be one of"),
    ("list: missing status", {"name": "list_invoices", "arguments": {}}, "missing required"),
    ("list: limit 0", {"name": "list_invoices", "arguments": {"status": "received", "limit": 0}}, "at least 1"),
    ("list: limit 201", {"name": "list_invoices", "arguments": {"status": "received", "limit": 201}}, "at most 200"),
    (
        "list: limit string",
        {"name": "list_invoices", "arguments": {"status": "received", "limit": "5"}},
        "must be an integer",
    ),
    (
        "list: limit float",
        {"name": "list_invoices", "arguments": {"status": "received", "limit": 5.0}},
        "must be an integer",
    ),
    (
        "list: unknown supplier",
        {"name": "list_invoices", "arguments": {"status": "received", "supplier_id": "K-1"}},
        "not found",
    ),
    # get_invoice
    ("get: unknown id", {"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-99999"}}, "not found"),
    ("get: int id", {"name": "get_invoice", "arguments": {"invoice_id": 19}}, "must be a string"),
    ("get: extra arg", {"name": "get_invoice", "arguments": {"invoice_id": INVOICE, "x": 1}}, "unexpected"),
    ("get: huge id", {"name": "get_invoice", "arguments": {"invoice_id": "E" * 1_000_000}}, "at most 256"),
    ("get: NUL", {"name": "get_invoice", "arguments": {"invoice_id": "ER\x00"}}, "NUL"),
    ("get: sql", {"name": "get_invoice", "arguments": {"invoice_id": "x' OR '1'='1"}}, "not found"),
    # search_suppliers
    ("search: too short", {"name": "search_suppliers", "arguments": {"query": " a "}}, "at least 2"),
    ("search: too long", {"name": "search_suppliers", "arguments": {"query": "a" * 101}}, "at most 100"),
    ("search: missing", {"name": "search_suppliers", "arguments": {}}, "missing required"),
    # get_supplier / get_purchase_order
    ("supplier: unknown", {"name": "get_supplier", "arguments": {"supplier_id": "K-00000"}}, "not found"),
    ("supplier: list arg", {"name": "get_supplier", "arguments": {"supplier_id": ["K-1"]}}, "must be a string"),
    ("po: unknown", {"name": "get_purchase_order", "arguments": {"po_number": "4599999999"}}, "not found"),
    ("po: int", {"name": "get_purchase_order", "arguments": {"po_number": 4500000000}}, "must be a string"),
    # list_approvers / whoami take nothing
    ("approvers: extra", {"name": "list_approvers", "arguments": {"role": "CFO"}}, "unexpected"),
    ("whoami: extra", {"name": "whoami", "arguments": {"me": True}}, "unexpected"),
    # writes
    ("approve: unknown", {"name": "approve_invoice", "arguments": {"invoice_id": "ER-2026-99999"}}, "not found"),
    ("approve: decided", {"name": "approve_invoice", "arguments": {"invoice_id": DECIDED}}, "already approved"),
    ("approve: missing", {"name": "approve_invoice", "arguments": {}}, "missing required"),
    (
        "reject: bad code",
        {"name": "reject_invoice", "arguments": {"invoice_id": INVOICE, "reason_code": "OTHER"}},
        "must be one of",
    ),
    (
        "reject: hold code",
        {"name": "reject_invoice", "arguments": {"invoice_id": INVOICE, "reason_code": "PO_EXCEEDED"}},
        "must be one of",
    ),
    (
        "reject: decided",
        {"name": "reject_invoice", "arguments": {"invoice_id": DECIDED, "reason_code": "DUPLICATE"}},
        "already approved",
    ),
    (
        "reject: huge comment",
        {
            "name": "reject_invoice",
            "arguments": {"invoice_id": INVOICE, "reason_code": "DUPLICATE", "comment": "x" * 1001},
        },
        "at most 1000",
    ),
    (
        "hold: reject code",
        {"name": "hold_invoice", "arguments": {"invoice_id": INVOICE, "reason_code": "DUPLICATE"}},
        "must be one of",
    ),
    ("hold: missing code", {"name": "hold_invoice", "arguments": {"invoice_id": INVOICE}}, "missing required"),
    (
        "escalate: unknown approver",
        {"name": "escalate_invoice", "arguments": {"invoice_id": INVOICE, "approver_id": "AP-999"}},
        "not found",
    ),
    (
        "escalate: missing approver",
        {"name": "escalate_invoice", "arguments": {"invoice_id": INVOICE}},
        "missing required",
    ),
    (
        "escalate: bool",
        {"name": "escalate_invoice", "arguments": {"invoice_id": INVOICE, "approver_id": True}},
        "must be a string",
    ),
]


@pytest.mark.parametrize("label, action, message", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_call_is_an_error_and_changes_nothing(batch_env: Any, label: str, action: Any, message: str) -> None:
    before = dump(episode_conn(batch_env))
    observation, reward, terminated, truncated, info = batch_env.step(action)
    assert observation.startswith("Error: ") and message in observation, observation
    assert len(observation) < 600
    assert (reward, terminated, truncated, info["is_error"]) == (0.0, False, False, True)
    assert dump(episode_conn(batch_env)) == before


def test_escalating_to_yourself_is_refused(batch_env: Any) -> None:
    me = json.loads(batch_env.step({"name": "whoami", "arguments": {}})[0])["approver_id"]
    before = dump(episode_conn(batch_env))
    observation = batch_env.step({"name": "escalate_invoice", "arguments": {"invoice_id": INVOICE, "approver_id": me}})[
        0
    ]
    assert observation.startswith("Error: ") and "yourself" in observation
    assert dump(episode_conn(batch_env)) == before


def test_a_second_decision_is_an_invalid_transition(batch_env: Any) -> None:
    assert not batch_env.step(
        {"name": "hold_invoice", "arguments": {"invoice_id": INVOICE, "reason_code": "PO_EXCEEDED"}}
    )[0].startswith("Error")
    before = dump(episode_conn(batch_env))
    for action in (
        {"name": "approve_invoice", "arguments": {"invoice_id": INVOICE}},
        {"name": "reject_invoice", "arguments": {"invoice_id": INVOICE, "reason_code": "DUPLICATE"}},
        {"name": "escalate_invoice", "arguments": {"invoice_id": INVOICE, "approver_id": "AP-212"}},
    ):
        observation = batch_env.step(action)[0]
        assert observation.startswith("Error: ") and "already on_hold" in observation
    assert dump(episode_conn(batch_env)) == before


def test_writes_are_audited_and_post_the_ledger(batch_env: Any) -> None:
    conn = episode_conn(batch_env)
    invoice = json.loads(batch_env.step({"name": "get_invoice", "arguments": {"invoice_id": INVOICE}})[0])
    po_before = conn.execute(
        "SELECT net_invoiced_cents FROM purchase_orders WHERE po_number = ?", (invoice["po_number"],)
    ).fetchone()
    observation = batch_env.step({"name": "approve_invoice", "arguments": {"invoice_id": INVOICE}})[0]
    assert observation.startswith("Approved")
    lines = conn.execute(
        "SELECT account, debit_cents, credit_cents FROM ledger WHERE invoice_id = ? ORDER BY line_id", (INVOICE,)
    ).fetchall()
    vat_account = "1571" if invoice["vat_rate"] == 7 else "1576"
    assert lines == [
        (invoice["expense_account"], invoice["net_cents"], 0),
        (vat_account, invoice["vat_cents"], 0),
        ("1600", 0, invoice["gross_cents"]),
    ]
    if po_before:
        po_after = conn.execute(
            "SELECT net_invoiced_cents FROM purchase_orders WHERE po_number = ?", (invoice["po_number"],)
        ).fetchone()
        assert po_after[0] == po_before[0] + invoice["net_cents"]
    audit = conn.execute("SELECT approver_id, tool, invoice_id FROM audit_log").fetchall()
    assert audit == [(batch_env.unwrapped.bundle.tasks["batch-1"].actor, "approve_invoice", INVOICE)]


def test_odd_but_valid_strings_are_handled(batch_env: Any) -> None:
    for query in ("🙂🙂", "%_%", "\\\\", "'; DROP TABLE invoices; --", "Ünïcødé", "\u202e\u202d"):
        observation = batch_env.step({"name": "search_suppliers", "arguments": {"query": query}})[0]
        assert json.loads(observation)["matches"] == []
    assert episode_conn(batch_env).execute("SELECT COUNT(*) FROM invoices").fetchone()[0] == 200


def test_read_tools_return_json(batch_env: Any) -> None:
    calls = [
        ("list_invoices", {"status": "received", "limit": 3}),
        ("get_invoice", {"invoice_id": INVOICE}),
        ("search_suppliers", {"query": "gmbh"}),
        ("list_approvers", {}),
        ("whoami", {}),
    ]
    for name, arguments in calls:
        data = json.loads(batch_env.step({"name": name, "arguments": arguments})[0])
        assert data
    listed = json.loads(batch_env.step({"name": "list_invoices", "arguments": {"status": "received", "limit": 200}})[0])
    assert listed["total"] == 182 and listed["returned"] == 182
    keys = [(i["received_date"], i["invoice_id"]) for i in listed["invoices"]]
    assert keys == sorted(keys)


def test_an_unbalanced_invoice_cannot_be_posted(world: Any) -> None:
    mismatch = next(i for i in world.invoices if i.trap == "gross_mismatch")
    env = gym.make("officegym/InvoiceApproval-v0")
    env.reset(seed=0, options={"task_id": "batch-1"})
    before = dump(episode_conn(env))
    observation = env.step({"name": "approve_invoice", "arguments": {"invoice_id": mismatch.invoice_id}})[0]
    assert observation.startswith("Error: cannot post") and "would not balance" in observation
    assert dump(episode_conn(env)) == before
    assert env.step(
        {"name": "reject_invoice", "arguments": {"invoice_id": mismatch.invoice_id, "reason_code": "VAT_ERROR"}}
    )[0].startswith("Rejected")
