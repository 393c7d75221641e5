"""The v1 tools: no policy in any answer, paged listings with deterministic cursors, capture, and refusals
that change nothing."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from officegym.envs.invoice_approval.v1.bundle import load_bundle
from officegym.envs.invoice_approval.v1.episode import V1Episode
from officegym.envs.invoice_approval.v1.grading import book_state
from officegym.envs.invoice_approval.v1.reading import read_document
from officegym.envs.invoice_approval.v1.rules import capture_action
from officegym.envs.invoice_approval.v1.sandbox import call, open_episode


@pytest.fixture()
def episode() -> Any:
    bundle = load_bundle()
    made = open_episode(bundle.template, next(iter(bundle.tasks.values())).actor)
    yield made
    made.conn.close()


def run(episode: V1Episode, name: str, **arguments: Any) -> str:
    return call(episode, {"name": name, "arguments": arguments}).observation


def received_ids(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT invoice_id FROM invoices WHERE status = 'received' ORDER BY 1")]


def test_approve_never_refuses_for_policy_reasons(episode: V1Episode) -> None:
    """Every received document, captured from its document, is approved without an error and posts a balanced
    entry: so "reject VAT_ERROR when approve fails" learns nothing."""
    for iid in received_ids(episode.conn):
        record = json.loads(run(episode, "get_invoice", invoice_id=iid))
        fix = capture_action(record, read_document(run(episode, "get_document", invoice_id=iid)))
        if fix is not None:
            assert not call(episode, fix).is_error
        assert run(episode, "approve_invoice", invoice_id=iid) == f"Approved {iid}."
        debit, credit = episode.conn.execute(
            "SELECT SUM(debit_cents), SUM(credit_cents) FROM ledger WHERE invoice_id = ?", (iid,)
        ).fetchone()
        assert debit == credit > 0, iid


def test_pages_follow_cursors_in_id_order(episode: V1Episode) -> None:
    ids, cursor, pages = [], "", 0
    while True:
        page = json.loads(run(episode, "list_invoices", status="received", **({"cursor": cursor} if cursor else {})))
        ids += [row["invoice_id"] for row in page["invoices"]]
        assert len(page["invoices"]) <= 10
        pages += 1
        if page["next_cursor"] is None:
            break
        assert (
            page["next_cursor"]
            == json.loads(run(episode, "list_invoices", status="received", **({"cursor": cursor} if cursor else {})))[
                "next_cursor"
            ]
        )
        cursor = page["next_cursor"]
    assert ids == received_ids(episode.conn) and pages > 1


@pytest.mark.parametrize("cursor", ["abc", "000000000000.a", "x" * 64])
def test_made_up_cursors_are_refused(episode: V1Episode, cursor: str) -> None:
    assert run(episode, "list_invoices", status="received", cursor=cursor).startswith("Error: cursor is not valid")


def test_a_cursor_of_another_listing_is_refused(episode: V1Episode) -> None:
    cursor = json.loads(run(episode, "list_invoices", status="received"))["next_cursor"]
    assert run(episode, "list_invoices", status="approved", cursor=cursor).startswith("Error: ")
    po = episode.conn.execute("SELECT po_number FROM goods_receipts GROUP BY po_number LIMIT 1").fetchone()[0]
    assert run(episode, "list_goods_receipts", po_number=po, cursor=cursor).startswith("Error: ")


def test_refused_writes_change_nothing(episode: V1Episode) -> None:
    before = book_state(episode.conn)
    iid = received_ids(episode.conn)[0]
    decided = episode.conn.execute("SELECT invoice_id FROM invoices WHERE status = 'approved' LIMIT 1").fetchone()[0]
    uncaptured = episode.conn.execute(
        "SELECT invoice_id FROM invoices WHERE status = 'received' AND net_cents IS NULL LIMIT 1"
    ).fetchone()[0]
    good = {"supplier_invoice_no": "X1", "net_cents": 1, "vat_rate": 0, "vat_cents": 0, "gross_cents": 1}
    for name, arguments in [
        ("capture_invoice", {"invoice_id": iid, "invoice_date": "14.03.2026", **good}),
        ("capture_invoice", {"invoice_id": iid, "invoice_date": "2026-02-30", **good}),
        ("capture_invoice", {"invoice_id": decided, "invoice_date": "2026-03-01", **good}),
        ("capture_invoice", {"invoice_id": iid, "invoice_date": "2026-03-01", **good, "supplier_invoice_no": " "}),
        ("approve_invoice", {"invoice_id": uncaptured}),
        ("approve_invoice", {"invoice_id": decided}),
        ("list_invoices", {"status": "received", "inbox": "PE-999"}),
    ]:
        assert run(episode, name, **arguments).startswith("Error: "), (name, arguments)
    assert book_state(episode.conn) == before


def test_capture_then_read_back(episode: V1Episode) -> None:
    iid = received_ids(episode.conn)[0]
    run(episode, "capture_invoice", invoice_id=iid, supplier_invoice_no="RE-1", invoice_date="2026-03-02",
        net_cents=100, vat_rate=19, vat_cents=19, gross_cents=119)  # fmt: skip
    record = json.loads(run(episode, "get_invoice", invoice_id=iid))
    assert (record["supplier_invoice_no"], record["po_number"], record["gross_cents"]) == ("RE-1", None, 119)
