"""Building the 60 tasks: work orders over the generated company, their gold paths and their wrong paths.

``generate_tasks(world)`` picks each task's invoices and acting approver with a seeded RNG, writes the work
order, runs the reference solver for the gold path, and derives 3-6 wrong paths (plausible mistakes) that
each provably end in different books. The canonical output is ``assets/invoice_approval/v0/tasks.jsonl``;
``python -m officegym.envs.invoice_approval.v0.authoring.generate`` regenerates it (and the seed DB) from seed 42.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ....core.actions import Action
from ...shared.entities import Invoice, World
from ...shared.tasks import Task
from ..db import episode_template, fingerprint
from ..grading import BookState, book_state
from ..rules import solve
from ..sandbox import call, open_episode, replay
from .seed_db import build_seed_db
from .world import load_asset

SINGLE_KINDS = (
    "blocked_supplier",
    "blocked_with_flaw",
    "exact_duplicate",
    "spelling_duplicate",
    "duplicate_with_flaw",
    "duplicate_of_approved",
    "missing_po",
    "missing_po_boundary",
    "po_other_supplier",
    "po_closed",
    "po_unknown",
    "kleinbetrag_bad_po",
    "po_budget_over",
    "vat_wrong_rate",
    "vat_books_at_19",
    "vat_off_by_cent",
    "vat_half_cent_wrong",
    "gross_mismatch",
    "limit_over",
    "escalation_tie",
)
ARITHMETIC = (
    "vat_off_by_cent",
    "vat_half_cent_ok",
    "vat_half_cent_wrong",
    "gross_mismatch",
    "po_budget_exact",
    "po_budget_over",
    "limit_exact",
    "limit_over",
    "kleinbetrag_exact",
    "missing_po_boundary",
    "vat_wrong_rate",
    "vat_books_at_19",
    "vat_reduced_ok",
    "escalation_tie",
    "kleinbetrag_po_exceeded",
)


@dataclass
class _Context:
    world: World
    template: bytes
    rng: random.Random
    fingerprint: str

    def received(self) -> list[Invoice]:
        return [i for i in self.world.invoices if i.status == "received"]

    def by_trap(self) -> dict[str, list[Invoice]]:
        groups: dict[str, list[Invoice]] = defaultdict(list)
        for invoice in self.received():
            groups[invoice.trap].append(invoice)
        return groups

    def final_state(self, actor: str, actions: Sequence[Action]) -> BookState:
        episode = replay(self.template, actor, actions)
        state = book_state(episode.conn)
        episode.conn.close()
        return state

    def solve(self, actor: str, scope: Sequence[str], order: str = "received") -> list[Action]:
        episode = open_episode(self.template, actor)
        path = solve(lambda a: call(episode, a).observation, scope, order)  # type: ignore[arg-type]
        episode.conn.close()
        return path


def generate_tasks(world: World) -> list[Task]:
    conn = build_seed_db(world)
    ctx = _Context(world, episode_template(conn.serialize()), random.Random(world.seed * 1000 + 7), fingerprint(conn))
    conn.close()
    tasks: list[Task] = []
    for builder in (_single_tasks, _batch_tasks, _long_tasks, _hard_tasks):
        tasks.extend(builder(ctx))
    return tasks


# ------------------------------------------------------------------------- scopes per tier
def _approvers(ctx: _Context, roles: Sequence[str]) -> list[str]:
    return [a.approver_id for a in ctx.world.approvers if a.role in roles]


def _single_tasks(ctx: _Context) -> list[Task]:
    groups = ctx.by_trap()
    tasks = []
    for n, kind in enumerate(SINGLE_KINDS, start=1):
        invoice = ctx.rng.choice(groups[kind])
        tasks.append(_make_task(ctx, f"single-{n}", "single", invoice.design_actor, [invoice.invoice_id]))
    return tasks


def _batch_tasks(ctx: _Context) -> list[Task]:
    received = ctx.received()
    by_supplier: dict[str, list[str]] = defaultdict(list)
    by_date: dict[str, list[str]] = defaultdict(list)
    for invoice in received:
        by_supplier[invoice.supplier_id].append(invoice.invoice_id)
        by_date[invoice.received_date.isoformat()].append(invoice.invoice_id)
    pools = [
        sorted((v for v in by_supplier.values() if 3 <= len(v) <= 10), key=lambda v: v[0]),
        sorted((v for v in by_date.values() if 3 <= len(v) <= 10), key=lambda v: v[0]),
    ]
    tricky = _tricky_groups(ctx)
    actors = _approvers(ctx, ("Teamleiter", "Teamleiter", "Abteilungsleiter", "Bereichsleiter", "CFO"))
    tasks: list[Task] = []
    while len(tasks) < 20:
        kind = len(tasks) % 3
        if kind < 2 and pools[kind]:
            scope = list(pools[kind].pop(ctx.rng.randrange(len(pools[kind]))))
        else:
            scope = _short_list(ctx, tricky)
        ctx.rng.shuffle(scope)
        task = _make_task(ctx, f"batch-{len(tasks) + 1}", "batch", ctx.rng.choice(actors), scope)
        if _approve_all_fails(ctx, task):
            tasks.append(task)
    return tasks


def _tricky_groups(ctx: _Context) -> list[list[str]]:
    """Invoices that belong together: a trap and its original, a budget chain, a boundary that passes."""
    received = ctx.received()
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for invoice in received:
        if invoice.trap in (
            "corrected_resubmission",
            "resubmission_original",
            "near_duplicate",
            "near_duplicate_original",
            "budget_chain",
        ):
            groups[(invoice.trap.split("_")[0], invoice.supplier_id)].append(invoice.invoice_id)
        elif invoice.trap in ARITHMETIC or invoice.trap in ("rejected_history_resubmission", "kleinbetrag_no_po"):
            groups[(invoice.trap, invoice.invoice_id)].append(invoice.invoice_id)
    return [groups[key] for key in sorted(groups)]


def _short_list(ctx: _Context, tricky: list[list[str]]) -> list[str]:
    scope: list[str] = []
    while len(scope) < 3:
        for iid in ctx.rng.choice(tricky):
            if iid not in scope:
                scope.append(iid)
    return scope[:10]


def _order_sensitive(ctx: _Context) -> list[list[str]]:
    return [g for g in _tricky_groups(ctx) if len(g) > 1]


def _big_task(
    ctx: _Context, task_id: str, tier: str, size: range, actors: list[str], preferred: Callable[[Invoice], bool]
) -> Task:
    """A long list with at least one order-sensitive group, listed so that list order matters."""
    received = ctx.received()
    for _ in range(200):
        target = ctx.rng.choice(list(size))
        scope: list[str] = []
        for group in ctx.rng.sample(_order_sensitive(ctx), 2):
            scope.extend(reversed(group))
        pool = [i.invoice_id for i in received if preferred(i) and i.invoice_id not in scope]
        rest = [i.invoice_id for i in received if i.invoice_id not in scope and i.invoice_id not in pool]
        ctx.rng.shuffle(pool)
        ctx.rng.shuffle(rest)
        scope += (pool + rest)[: target - len(scope)]
        scope = _misleading_order(ctx, scope)
        task = _make_task(ctx, task_id, tier, ctx.rng.choice(actors), scope)
        if _approve_all_fails(ctx, task) and any(w["kind"] == "listed_order" for w in task.wrong_actions):
            return task
    raise RuntimeError(f"could not build an order-sensitive task {task_id}")


def _misleading_order(ctx: _Context, scope: list[str]) -> list[str]:
    """Mostly newest first, with a few swaps: close to the reverse of processing order."""
    ordered = sorted(scope, reverse=True)
    for _ in range(len(ordered) // 3):
        i, j = ctx.rng.randrange(len(ordered)), ctx.rng.randrange(len(ordered))
        ordered[i], ordered[j] = ordered[j], ordered[i]
    return ordered


def _long_tasks(ctx: _Context) -> list[Task]:
    actors = _approvers(ctx, ("Teamleiter", "Abteilungsleiter"))
    return [
        _big_task(ctx, f"long-{n}", "long", range(15, 24), actors, lambda i: i.trap != "clean") for n in range(1, 11)
    ]


def _hard_tasks(ctx: _Context) -> list[Task]:
    actors = _approvers(ctx, ("Abteilungsleiter", "Bereichsleiter"))
    dense = (*ARITHMETIC, "duplicate_of_approved", "spelling_duplicate", "blocked_with_flaw", "duplicate_with_flaw")
    return [_big_task(ctx, f"hard-{n}", "hard", range(12, 16), actors, lambda i: i.trap in dense) for n in range(1, 11)]


# ------------------------------------------------------------------------- one task
def _make_task(ctx: _Context, task_id: str, tier: str, actor: str, scope: list[str]) -> Task:
    gold = ctx.solve(actor, scope)
    task = Task(task_id, tier, actor, scope, _work_order(ctx, actor, scope), gold, seed_fingerprint=ctx.fingerprint)
    task.wrong_actions = _wrong_paths(ctx, task)
    if len(task.wrong_actions) < 3:
        raise RuntimeError(f"{task_id}: only {len(task.wrong_actions)} wrong paths differ from gold")
    return task


def _work_order(ctx: _Context, actor: str, scope: Sequence[str]) -> str:
    phrases = load_asset("work_orders.json")
    approver = next(a for a in ctx.world.approvers if a.approver_id == actor)
    invoices = ", ".join(scope)
    parts = [
        ctx.rng.choice(phrases["openings"]).format(invoices=invoices, count=len(scope)),
        ctx.rng.choice(phrases["actor_lines"]).format(name=approver.name, role=approver.role, approver_id=actor),
        ctx.rng.choice(phrases["closings"]),
    ]
    return " ".join(p for p in parts if p)


def _decisions(actions: Sequence[Action]) -> list[Action]:
    return [a for a in actions if a["name"].endswith("_invoice") and a["name"] != "get_invoice"]


def _wrong_paths(ctx: _Context, task: Task) -> list[dict[str, Any]]:
    """Plausible mistakes, kept only when their final books differ from gold (at most 6)."""
    gold_state = ctx.final_state(task.actor, task.gold_actions)
    kept: list[dict[str, Any]] = []
    for kind, actions in _mutations(ctx, task):
        if actions is not None and ctx.final_state(task.actor, actions) != gold_state:
            kept.append({"kind": kind, "actions": actions})
        if len(kept) == 6:
            break
    return kept


def _mutations(ctx: _Context, task: Task) -> list[tuple[str, list[Action] | None]]:
    decisions = _decisions(task.gold_actions)
    reads: list[Action] = []  # reads change nothing: wrong paths keep only the writes, to stay small

    def replace(predicate: Callable[[Action], bool], new: Callable[[Action], Action]) -> list[Action] | None:
        for index, action in enumerate(decisions):
            if predicate(action):
                return reads + decisions[:index] + [new(action)] + decisions[index + 1 :]
        return None

    def iid(a: Action) -> str:
        return str(a["arguments"]["invoice_id"])

    listed = _decisions(ctx.solve(task.actor, task.scope, order="listed"))
    other = next(i.invoice_id for i in ctx.received() if i.invoice_id not in task.scope)
    return [
        (
            "approve_duplicate",
            replace(
                lambda a: a["arguments"].get("reason_code") == "DUPLICATE",
                lambda a: {"name": "approve_invoice", "arguments": {"invoice_id": iid(a)}},
            ),
        ),
        ("wrong_reason_code", replace(lambda a: "reason_code" in a["arguments"], _other_code)),
        (
            "wrong_escalation_target",
            replace(lambda a: a["name"] == "escalate_invoice", lambda a: _other_target(ctx, a)),
        ),
        ("listed_order", reads + listed),
        (
            "approve_instead",
            replace(
                lambda a: a["name"] != "approve_invoice",
                lambda a: {"name": "approve_invoice", "arguments": {"invoice_id": iid(a)}},
            ),
        ),
        ("extra_invoice", [*task.gold_actions, {"name": "approve_invoice", "arguments": {"invoice_id": other}}]),
        ("missing_decision", reads + decisions[:-1]),
        ("approve_all", [{"name": "approve_invoice", "arguments": {"invoice_id": i}} for i in task.scope]),
        (
            "reject_approved",
            replace(
                lambda a: a["name"] == "approve_invoice",
                lambda a: {"name": "reject_invoice", "arguments": {"invoice_id": iid(a), "reason_code": "VAT_ERROR"}},
            ),
        ),
    ]


_CODE_SWAP = {
    "DUPLICATE": "INVALID_PO",
    "MISSING_PO": "INVALID_PO",
    "INVALID_PO": "MISSING_PO",
    "VAT_ERROR": "INVALID_PO",
    "SUPPLIER_BLOCKED": "PO_EXCEEDED",
    "PO_EXCEEDED": "SUPPLIER_BLOCKED",
}


def _other_code(action: Action) -> Action:
    args = dict(action["arguments"])
    args["reason_code"] = _CODE_SWAP[args["reason_code"]]
    return {"name": action["name"], "arguments": args}


def _other_target(ctx: _Context, action: Action) -> Action:
    """Escalate to a sufficient approver that is not the policy's choice (a higher role, or a later ID)."""
    target = action["arguments"]["approver_id"]
    limit = next(a.limit_cents for a in ctx.world.approvers if a.approver_id == target)
    same = [a.approver_id for a in ctx.world.approvers if a.limit_cents == limit and a.approver_id != target]
    args = {**action["arguments"], "approver_id": (same or ["AP-999"])[-1]}
    return {"name": "escalate_invoice", "arguments": args}


def _approve_all_fails(ctx: _Context, task: Task) -> bool:
    return any(w["kind"] == "approve_all" for w in task.wrong_actions) or (
        ctx.final_state(task.actor, [{"name": "approve_invoice", "arguments": {"invoice_id": i}} for i in task.scope])
        != ctx.final_state(task.actor, task.gold_actions)
    )
