"""The record view behind get_invoice, get_supplier and get_purchase_order always shows the books."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest

from officegym.envs.invoice_approval.shared.book_changes import CHANGE_LOG
from officegym.envs.invoice_approval.shared.db import connect_bytes
from officegym.envs.invoice_approval.v0.db import shipped_seed_bytes
from officegym.envs.invoice_approval.v0.read_model import INVOICE, stale_records
from officegym.envs.invoice_approval.v0.sandbox import TOOLBOX, atomic

from ...conftest import episode_conn

RECEIVED = "ER-2026-00019"


def _get(batch_env: Any, name: str, **arguments: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(batch_env.step({"name": name, "arguments": arguments})[0])
    return result


def _view(batch_env: Any) -> Any:
    return batch_env.unwrapped.episode.records


def test_an_episode_starts_exact_and_the_seed_has_no_change_log(batch_env: Any) -> None:
    assert stale_records(_view(batch_env)) == []
    seed = connect_bytes(shipped_seed_bytes())
    tables = {name for (name,) in seed.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert CHANGE_LOG not in tables  # the seed file holds only the books


def test_reads_write_nothing_and_episodes_share_one_snapshot(batch_env: Any) -> None:
    before = episode_conn(batch_env).total_changes
    for _ in range(3):
        _get(batch_env, "get_invoice", invoice_id=RECEIVED)
    assert episode_conn(batch_env).total_changes == before
    other = gym.make("officegym/InvoiceApproval-v0")
    other.reset(seed=1)
    assert other.unwrapped.episode.records.base is _view(batch_env).base  # type: ignore[attr-defined]


def test_decisions_show_up_in_the_next_read(batch_env: Any) -> None:
    invoice = _get(batch_env, "get_invoice", invoice_id=RECEIVED)
    po_before = _get(batch_env, "get_purchase_order", po_number=invoice["po_number"])
    assert not batch_env.step({"name": "approve_invoice", "arguments": {"invoice_id": RECEIVED}})[0].startswith("Error")
    assert _get(batch_env, "get_invoice", invoice_id=RECEIVED)["status"] == "approved"
    po_after = _get(batch_env, "get_purchase_order", po_number=invoice["po_number"])
    assert po_after["net_invoiced_cents"] == po_before["net_invoiced_cents"] + invoice["net_cents"]
    assert stale_records(_view(batch_env)) == []


def test_a_tool_call_that_fails_half_way_logs_nothing(batch_env: Any) -> None:
    """A write tool runs in a savepoint; when it fails after changing the books, the rollback removes its log
    entries with its changes, and the next read still shows the books."""
    conn = episode_conn(batch_env)
    ctx = batch_env.unwrapped.episode
    with pytest.raises(RuntimeError), atomic(ctx, TOOLBOX.tools["approve_invoice"]):
        conn.execute("UPDATE invoices SET status = 'approved' WHERE invoice_id = ?", (RECEIVED,))
        assert conn.execute(f"SELECT COUNT(*) FROM {CHANGE_LOG}").fetchone()[0] == 2
        raise RuntimeError("the tool fails after its first write")
    assert conn.execute(f"SELECT COUNT(*) FROM {CHANGE_LOG}").fetchone()[0] == 0
    assert _get(batch_env, "get_invoice", invoice_id=RECEIVED)["status"] == "received"
    assert stale_records(_view(batch_env)) == []


def test_inside_a_tool_savepoint_reads_come_from_the_books_and_a_rollback_is_not_remembered(batch_env: Any) -> None:
    """A write tool may read what it just wrote; the view must show it without remembering it, because the
    tool can still fail and roll it back. (The episode's own transaction stays open all episode: only a tool's
    savepoint counts here.)"""
    conn = episode_conn(batch_env)
    ctx = batch_env.unwrapped.episode
    assert conn.in_transaction  # the episode's transaction, which the next reset rolls back
    with pytest.raises(RuntimeError), atomic(ctx, TOOLBOX.tools["approve_invoice"]):
        conn.execute("UPDATE invoices SET status = 'approved' WHERE invoice_id = ?", (RECEIVED,))
        assert json.loads(ctx.records.get(INVOICE, RECEIVED))["status"] == "approved"
        raise RuntimeError("the tool fails after reading its own write")
    assert _get(batch_env, "get_invoice", invoice_id=RECEIVED)["status"] == "received"
    assert stale_records(_view(batch_env)) == []


def test_every_kind_of_change_to_the_books_is_followed(batch_env: Any) -> None:
    """The tools only update rows, but the change log follows inserts, key changes and deletes too."""
    conn = episode_conn(batch_env)
    conn.execute("CREATE TEMP TABLE copy AS SELECT * FROM invoices WHERE invoice_id = ?", (RECEIVED,))
    conn.execute("UPDATE copy SET invoice_id = 'ER-2026-09999'")
    conn.execute("INSERT INTO invoices SELECT * FROM copy")
    conn.execute(
        "UPDATE suppliers SET is_blocked = 1, block_reason = 'Insolvenz' WHERE supplier_id = "
        "(SELECT MIN(supplier_id) FROM suppliers)"
    )
    conn.execute(
        "UPDATE purchase_orders SET po_number = '4599999999' WHERE po_number = "
        "(SELECT MIN(po_number) FROM purchase_orders WHERE po_number NOT IN "
        "(SELECT po_number FROM invoices WHERE po_number IS NOT NULL))"
    )
    conn.execute("DELETE FROM invoices WHERE invoice_id = ?", (RECEIVED,))
    assert stale_records(_view(batch_env)) == []
    assert _get(batch_env, "get_purchase_order", po_number="4599999999")["po_number"] == "4599999999"
    assert batch_env.step({"name": "get_invoice", "arguments": {"invoice_id": RECEIVED}})[0].startswith("Error: ")
    assert _get(batch_env, "get_invoice", invoice_id="ER-2026-09999")["invoice_id"] == "ER-2026-09999"


def test_a_stale_view_is_reported(batch_env: Any) -> None:
    view = _view(batch_env)
    view.changed["invoices", RECEIVED] = "{}"
    view.changed["suppliers", "K-00000"] = "{}"
    problems = stale_records(view)
    assert problems == [
        f"invoices {RECEIVED}: the view shows stale data",
        "suppliers K-00000: the view shows stale data",
    ]


def test_a_reset_forgets_the_last_episode(batch_env: Any) -> None:
    batch_env.step({"name": "approve_invoice", "arguments": {"invoice_id": RECEIVED}})
    assert _get(batch_env, "get_invoice", invoice_id=RECEIVED)["status"] == "approved"
    batch_env.reset(options={"task_id": "batch-1"})
    assert _get(batch_env, "get_invoice", invoice_id=RECEIVED)["status"] == "received"
    assert stale_records(_view(batch_env)) == []
