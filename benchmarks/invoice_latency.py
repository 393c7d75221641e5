"""InvoiceApproval latency: reset, each tool's step, and replaying + grading all 60 gold paths.

Every read is measured in the same run as its reference, the physical floor of that kind of read on the same
in-memory DB: the bare SQLite query plus ``json.dumps`` of its rows (a point query for single-record tools, a
50-row range for ``list_invoices``, a LIKE scan for ``search_suppliers``). Ratios, not absolute numbers,
are what carries from one (shared, noisy) machine to another. Single-record reads come from the record view
(``read_model.py``); ``read_after_write`` times the first read after a write, which goes to the books.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from officegym.envs.invoice_approval.v0.bundle import load_bundle
from officegym.envs.invoice_approval.v0.env import InvoiceApprovalEnv
from officegym.envs.invoice_approval.v0.sandbox import open_episode

from .timing import sample_us, summary

READ_CALLS: dict[str, dict[str, Any]] = {
    "get_invoice": {"invoice_id": "ER-2026-00100"},
    "get_supplier": {"supplier_id": ""},
    "get_purchase_order": {"po_number": ""},
    "whoami": {},
    "list_approvers": {},
    "list_invoices": {"status": "received", "supplier_id": "", "limit": 50},
    "search_suppliers": {"query": "gmbh"},
}


def _conn(env: InvoiceApprovalEnv) -> sqlite3.Connection:
    """The current episode's database (an episode must be running)."""
    assert env.episode is not None, "reset() first"
    conn: sqlite3.Connection = env.episode.conn
    return conn


def _fill_ids(env: InvoiceApprovalEnv) -> None:
    invoice = json.loads(env.step({"name": "get_invoice", "arguments": {"invoice_id": "ER-2026-00100"}})[0])
    READ_CALLS["get_supplier"]["supplier_id"] = invoice["supplier_id"]
    conn = _conn(env)
    READ_CALLS["get_purchase_order"]["po_number"] = conn.execute(
        "SELECT po_number FROM purchase_orders LIMIT 1"
    ).fetchone()[0]


FLOOR_QUERIES = {
    # the physical floor of each kind of read, on the episode's own DB: the query alone plus json.dumps
    "point": ("SELECT * FROM invoices WHERE invoice_id = ?", ("ER-2026-00100",)),
    "rows_14": ("SELECT * FROM approvers ORDER BY name, approver_id", ()),
    "rows_50": (
        "SELECT invoice_id, supplier_id, supplier_invoice_no, invoice_date, received_date, po_number, "
        "gross_cents, status, reason_code, assigned_to FROM invoices WHERE status = ? "
        "ORDER BY received_date, invoice_id LIMIT 50",
        ("received",),
    ),
    "like_scan": (
        "SELECT supplier_id, name, city, country, vat_id, is_blocked FROM suppliers "
        "WHERE lower(name) LIKE ?1 OR lower(city) LIKE ?1 OR lower(supplier_id) LIKE ?1 "
        "OR lower(vat_id) LIKE ?1 ORDER BY supplier_id LIMIT 20",
        ("%gmbh%",),
    ),
}
FLOOR_OF_TOOL = {"list_approvers": "rows_14", "list_invoices": "rows_50", "search_suppliers": "like_scan"}


def floors_us(env: InvoiceApprovalEnv, repeats: int) -> dict[str, dict[str, float]]:
    """Each floor: the bare query and ``json.dumps`` of its rows as dicts, without any tool machinery."""
    conn = _conn(env)

    def bare(sql: str, params: tuple[Any, ...]) -> Callable[[], str]:
        def run() -> str:
            cursor = conn.execute(sql, params)
            names = [c[0] for c in cursor.description]
            return json.dumps([dict(zip(names, row, strict=True)) for row in cursor])

        return run

    return {name: summary(sample_us(bare(sql, params), repeats)) for name, (sql, params) in FLOOR_QUERIES.items()}


def write_step_us(env: InvoiceApprovalEnv, repeats: int) -> dict[str, dict[str, float]]:
    """Write tools on a fresh episode each time (a decision can only happen once per invoice)."""
    received = [f"ER-2026-{n:05d}" for n in range(19, 201)]
    actions: dict[str, Callable[[str], dict[str, Any]]] = {
        "approve_invoice": lambda iid: {"name": "approve_invoice", "arguments": {"invoice_id": iid}},
        "reject_invoice": lambda iid: {
            "name": "reject_invoice",
            "arguments": {"invoice_id": iid, "reason_code": "VAT_ERROR"},
        },
        "hold_invoice": lambda iid: {
            "name": "hold_invoice",
            "arguments": {"invoice_id": iid, "reason_code": "PO_EXCEEDED"},
        },
        "escalate_invoice": lambda iid: {
            "name": "escalate_invoice",
            "arguments": {"invoice_id": iid, "approver_id": "AP-212"},
        },
    }
    out: dict[str, dict[str, float]] = {}
    for name, make in actions.items():
        samples: list[float] = []
        while len(samples) < repeats:
            env.reset(options={"task_id": "single-1"})
            for iid in received[: min(len(received), repeats - len(samples))]:
                start = time.perf_counter_ns()
                env.step(make(iid))
                samples.append((time.perf_counter_ns() - start) / 1000)
        out[name] = summary(np.array(samples))
    return out


def read_after_write_us(env: InvoiceApprovalEnv, repeats: int) -> dict[str, float]:
    """``get_invoice`` of an invoice just approved: the first read after a write recomputes the records the
    write changed (the invoice and its PO) from the books, so this is the slow path of the record view."""
    received = [f"ER-2026-{n:05d}" for n in range(19, 201)]
    samples: list[float] = []
    while len(samples) < repeats:
        env.reset(options={"task_id": "single-1"})
        for iid in received[: min(len(received), repeats - len(samples))]:
            env.step({"name": "approve_invoice", "arguments": {"invoice_id": iid}})
            start = time.perf_counter_ns()
            env.step({"name": "get_invoice", "arguments": {"invoice_id": iid}})
            samples.append((time.perf_counter_ns() - start) / 1000)
    return summary(np.array(samples))


def reset_new_connection_us(repeats: int) -> dict[str, float]:
    """What a reset would cost if every episode opened a new connection instead of reusing the env's (the
    episode is opened and closed): the reference for the connection reuse in ``InvoiceApprovalEnv.reset``."""
    bundle = load_bundle()
    task = bundle.tasks["batch-1"]
    return summary(sample_us(lambda: open_episode(bundle.template, task.actor, task.id).conn.close(), repeats))


def gold_replay_s(env: InvoiceApprovalEnv | None = None) -> dict[str, float]:
    """Replay every task's gold path through env.step, finish, grade. Cold: the gold states of the env's own
    bundle not yet cached (clearing ``load_bundle()``'s entry once missed when it was not the env's)."""
    env = env or InvoiceApprovalEnv()
    bundle = env.bundle
    bundle._gold.clear()
    result: dict[str, float] = {}
    for label in ("cold_s", "warm_s"):
        start = time.perf_counter()
        total = 0.0
        for task_id, task in bundle.tasks.items():
            env.reset(options={"task_id": task_id})
            for action in task.gold_actions:
                env.step(action)
            total += env.step({"name": "finish", "arguments": {}})[1]
        result[label] = round(time.perf_counter() - start, 4)
        assert total == len(bundle.tasks)
    result["steps"] = sum(len(t.gold_actions) + 1 for t in bundle.tasks.values())
    return result


def grading_us(repeats: int, env_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Grading alone on the longest task's final state, cold and warm. Cold is a task's first grading in a
    process: its gold state is not cached, so grading replays the gold path first; each cold sample drops the
    task's entry from the env's own bundle beforehand. Warm is every later grading (gold state cached); the
    top-level p50/p95 are warm, as before."""
    env = InvoiceApprovalEnv(**(env_kwargs or {}))
    bundle = env.bundle
    longest = max(bundle.tasks.values(), key=lambda t: len(t.scope))
    env.reset(options={"task_id": longest.id})
    for action in longest.gold_actions:
        env.step(action)
    ctx = env.episode
    assert ctx is not None

    def cold() -> None:
        bundle._gold.pop(longest.id, None)
        bundle._gold_delta.pop(longest.id, None)
        bundle._gold_stored.pop(longest.id, None)  # and its copy from the company cache: cold replays the path
        env._grade_episode(ctx)

    cold_us = summary(sample_us(cold, max(3, repeats // 10), warmup=0))
    warm_us = summary(sample_us(lambda: env._grade_episode(ctx), repeats))
    env.close()
    return {"task": longest.id, "scope": len(longest.scope), **warm_us, "warm": warm_us, "cold": cold_us}


def _stepper(env: InvoiceApprovalEnv, name: str, arguments: dict[str, Any]) -> Callable[[], object]:
    action = {"name": name, "arguments": arguments}
    return lambda: env.step(action)


def run(quick: bool = False) -> dict[str, Any]:
    repeats = 300 if quick else 3000
    env = InvoiceApprovalEnv(max_turns=10**9)  # one long episode: every read below is a real step
    env.reset(options={"task_id": "batch-1"})
    _fill_ids(env)
    reads = {name: summary(sample_us(_stepper(env, name, args), repeats)) for name, args in READ_CALLS.items()}
    floors = floors_us(env, repeats)
    resets = summary(sample_us(lambda: env.reset(options={"task_id": "batch-1"}), repeats))
    return {
        "reset": resets,
        "reset_new_connection": reset_new_connection_us(repeats),
        "read_tools": reads,
        "write_tools": write_step_us(InvoiceApprovalEnv(max_turns=10_000), repeats // 10),
        "read_after_write": read_after_write_us(InvoiceApprovalEnv(max_turns=10_000), repeats // 10),
        "floors_sqlite_json": floors,
        "read_tool_over_floor_p50": {
            n: round(r["p50_us"] / floors[FLOOR_OF_TOOL.get(n, "point")]["p50_us"], 2) for n, r in reads.items()
        },
        "gold_replay_60_tasks": gold_replay_s(),
        "grading_longest_task": grading_us(repeats // 10),
    }
