"""v2's listers cannot skip (issue 27): a cursor taken before a decision that changed its listing is refused with
an ``Error:`` naming the fix, and one whose listing is unchanged pages on. v1 is shown skipping first, on the
same books, so the finding is reproduced where it lives."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from officegym.envs.invoice_approval.v1 import sandbox as v1_sandbox
from officegym.envs.invoice_approval.v1.bundle import load_bundle as load_v1
from officegym.envs.invoice_approval.v1.episode import V1Episode
from officegym.envs.invoice_approval.v2.bundle import load_bundle
from officegym.envs.invoice_approval.v2.sandbox import call, open_episode

INBOX = re.compile(r"PE-\d{3}")


def inbox_tasks() -> list[tuple[str, str]]:
    """(task id, inbox) of every shipped work order that names an inbox."""
    found = [(task.id, INBOX.search(task.work_order)) for task in load_bundle().tasks.values()]
    return [(task_id, match.group(0)) for task_id, match in found if match]


@pytest.fixture()
def episode() -> Iterator[V1Episode]:
    bundle = load_bundle()
    made = open_episode(bundle.template, next(iter(bundle.tasks.values())).actor)
    yield made
    made.conn.close()


def run(episode: V1Episode, name: str, **arguments: Any) -> str:
    return str(call(episode, {"name": name, "arguments": arguments}).observation)


def page(episode: V1Episode, **arguments: Any) -> dict[str, Any]:
    answer = run(episode, "list_invoices", **arguments)
    assert not answer.startswith("Error:"), answer
    found: dict[str, Any] = json.loads(answer)
    return found


def decide_first_page(episode: V1Episode, first: dict[str, Any]) -> None:
    """Reject every received document of a page (the others are decided already)."""
    for row in (row for row in first["invoices"] if row["status"] == "received"):
        assert not run(episode, "reject_invoice", invoice_id=row["invoice_id"], reason_code="DUPLICATE").startswith(
            "Error:"
        )


def test_v1_skips_documents_after_decisions_on_some_inbox_orders() -> None:
    """The finding, reproduced on v1: decide page 1 of an inbox's received documents, then follow its cursor.
    Where the offset still fits the shrunken listing, v1 answers a page that starts 10 documents late."""
    bundle = load_v1()
    skipped = []
    for task_id, inbox in inbox_tasks():
        ep = v1_sandbox.open_episode(bundle.template, bundle.tasks[task_id].actor)
        first = json.loads(v1_sandbox.call(ep, _listing(inbox)).observation)
        for row in first["invoices"]:
            v1_sandbox.call(ep, _reject(row["invoice_id"]))
        later = v1_sandbox.call(ep, _listing(inbox, first["next_cursor"])).observation
        if not later.startswith("Error:"):
            seen = {row["invoice_id"] for row in json.loads(later)["invoices"]}
            still = [r[0] for r in ep.conn.execute(_RECEIVED, (inbox,))]
            skipped.append((task_id, [iid for iid in still[:10] if iid not in seen]))
        ep.conn.close()
    assert len(skipped) >= 2 and all(len(never_listed) == 10 for _, never_listed in skipped)


_RECEIVED = "SELECT invoice_id FROM invoices WHERE status = 'received' AND inbox = ? ORDER BY invoice_id"


def _listing(inbox: str, cursor: str = "") -> dict[str, Any]:
    return {"name": "list_invoices", "arguments": {"status": "received", "inbox": inbox, "cursor": cursor}}


def _reject(invoice_id: str) -> dict[str, Any]:
    return {"name": "reject_invoice", "arguments": {"invoice_id": invoice_id, "reason_code": "DUPLICATE"}}


@pytest.mark.parametrize(("task_id", "inbox"), inbox_tasks())
def test_every_inbox_order_refuses_a_cursor_its_decisions_made_stale(task_id: str, inbox: str) -> None:
    bundle = load_bundle()
    ep = open_episode(bundle.template, bundle.tasks[task_id].actor)
    try:
        first = page(ep, status="received", inbox=inbox)
        assert first["next_cursor"] is not None
        decide_first_page(ep, first)
        before = ep.conn.execute("SELECT status FROM invoices ORDER BY invoice_id").fetchall()
        answer = run(ep, "list_invoices", status="received", inbox=inbox, cursor=first["next_cursor"])
        assert answer.startswith("Error: the listing has changed since this cursor was given")
        assert "call list_invoices again without a cursor" in answer
        assert ep.conn.execute("SELECT status FROM invoices ORDER BY invoice_id").fetchall() == before
        again = page(ep, status="received", inbox=inbox)
        assert [r[0] for r in ep.conn.execute(_RECEIVED, (inbox,))][:10] == [
            row["invoice_id"] for row in again["invoices"]
        ]
    finally:
        ep.conn.close()


def test_a_lister_that_starts_over_when_refused_sees_every_record(episode: V1Episode) -> None:
    """Deciding each page as it comes, and listing again whenever a cursor is refused, reaches every received
    document of the company exactly once: nothing skipped."""
    expected = [row[0] for row in episode.conn.execute("SELECT invoice_id FROM invoices WHERE status = 'received'")]
    decided: list[str] = []
    cursor, refusals = "", 0
    while True:
        answer = run(episode, "list_invoices", status="received", **({"cursor": cursor} if cursor else {}))
        if answer.startswith("Error:"):
            refusals, cursor = refusals + 1, ""
            continue
        listed = json.loads(answer)
        for row in listed["invoices"]:
            run(episode, "reject_invoice", invoice_id=row["invoice_id"], reason_code="DUPLICATE")
            decided.append(row["invoice_id"])
        cursor = listed["next_cursor"] or ""
        if not cursor and listed["total"] <= len(listed["invoices"]):
            break
    assert sorted(decided) == sorted(expected) and len(decided) == len(set(decided))
    assert refusals > 0


def test_writes_that_leave_a_listing_as_it_was_keep_its_cursors(episode: V1Episode) -> None:
    """An inbox listing without a status filter keeps its members when one of them is decided, and a supplier's
    listing does not change when a capture rewrites a field: their cursors page on, to the same next page."""
    inbox = inbox_tasks()[0][1]
    first = page(episode, inbox=inbox)
    expected = page(episode, inbox=inbox, cursor=first["next_cursor"])
    decide_first_page(episode, first)
    after = page(episode, inbox=inbox, cursor=first["next_cursor"])
    assert [row["invoice_id"] for row in after["invoices"]] == [row["invoice_id"] for row in expected["invoices"]]
    assert after["next_cursor"] == expected["next_cursor"]


def test_cursors_are_deterministic_and_a_made_up_or_v1_cursor_is_refused(episode: V1Episode) -> None:
    first = page(episode, status="received")
    assert page(episode, status="received")["next_cursor"] == first["next_cursor"]
    v1_cursor = json.loads(v1_sandbox.call(episode, _listing_all()).observation)["next_cursor"]
    for cursor in (v1_cursor, "0123456789ab.0123456789ab.a", "x" * 64, first["next_cursor"][:-1] + "f"):
        answer = run(episode, "list_invoices", status="received", cursor=cursor)
        assert answer == "Error: cursor is not valid for this listing; call the tool without a cursor to start over"
    other = run(episode, "list_invoices", status="approved", cursor=first["next_cursor"])
    assert other.startswith("Error: cursor is not valid for this listing")


def _listing_all() -> dict[str, Any]:
    return {"name": "list_invoices", "arguments": {"status": "received"}}


def test_goods_receipts_page_with_cursors_bound_to_their_listing(episode: V1Episode) -> None:
    """Receipts are never written by a tool, so their cursors hold for the whole episode; pages follow in
    receipt order and end with a null cursor."""
    po = episode.conn.execute(
        "SELECT po_number FROM goods_receipts GROUP BY po_number HAVING COUNT(*) > 5 ORDER BY po_number LIMIT 1"
    ).fetchone()
    if po is None:
        pytest.skip("the shipped company has no PO with more than 5 receipts")
    ids, cursor = [], ""
    while True:
        listed = json.loads(run(episode, "list_goods_receipts", po_number=po[0], cursor=cursor))
        ids += [row["receipt_id"] for row in listed["receipts"]]
        cursor = listed["next_cursor"] or ""
        if not cursor:
            break
    rows = episode.conn.execute("SELECT receipt_id FROM goods_receipts WHERE po_number = ? ORDER BY 1", po)
    assert ids == [row[0] for row in rows]
