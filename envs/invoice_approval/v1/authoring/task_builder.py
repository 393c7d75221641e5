"""Building the v1 tasks: work orders over a generated company, gold paths and wrong paths (offline).

Single tasks: every trap kind alone (each kind is the one trap of exactly one single task, approve-answer kinds
included), in an order shuffled per company (so ``single-N`` names a different kind in every company), each next to
one plain **control** document whose right decision differs from the trap's: next to a non-approve trap a clean
domestic invoice on a PO (approve) half of the time, else a blocked supplier's invoice (hold) or a plain missing
PO (reject); next to an approve trap one of the latter two. So no fixed decision (approve-all included) passes a
single task. The control's kind, the document and the order of the two are drawn per company from their own seeded
RNG (the other tiers' draws stay as they were); the control is never one of the tricky kinds, and the two never
interact (different suppliers, no shared PO, printed or captured). Batch: a supplier's documents or a short list
of related ones. Long: an inbox, whose documents the agent lists page by page. Hard: dense lists of capture
errors, chains, credit notes and three-way matches. Gold paths come from the reference solver; 3-6 wrong paths
per task, each kept only if it ends in different books.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from ...shared.tasks import Task
from ..db import episode_template, fingerprint
from ..grading import BookState, book_state
from ..rules import solve
from ..sandbox import call, open_episode, replay
from ..tools import RejectCode
from .model import V1Invoice, V1World
from .seed_db import build_seed_db
from .world import load_v1_asset

NOT_SINGLE = {"clean", "duplicate_original", "near_duplicate_original", "credit_chain_original", "history_credit"}
DENSE = (
    "capture", "credit", "qty_", "price_", "chain", "resubmission", "rc_", "ige_", "eu_", "duplicate", "vat_half",
)  # fmt: skip
COUNTS = {"batch": 24, "long": 12, "hard": 12}


@dataclass
class Context:
    world: V1World
    template: bytes
    rng: random.Random
    fingerprint: str
    controls: random.Random = field(default_factory=lambda: random.Random(0))  # draws the single tasks' controls

    def received(self) -> list[V1Invoice]:
        return [i for i in self.world.invoices if i.status == "received"]

    def final(self, actor: str, actions: Sequence[Any]) -> BookState:
        episode = replay(self.template, actor, actions)
        state = book_state(episode.conn)
        episode.conn.close()
        return state

    def errors(self, task: Task) -> bool:
        """Whether the task's gold path meets any ``Error:`` answer."""
        episode = open_episode(self.template, task.actor)
        found = any(call(episode, action).is_error for action in task.gold_actions)
        episode.conn.close()
        return found

    def solve(self, actor: str, opening: str, **kwargs: Any) -> list[Any]:
        episode = open_episode(self.template, actor)
        path = solve(lambda a: call(episode, a).observation, opening, **kwargs)
        episode.conn.close()
        return path


def generate_tasks(world: V1World) -> list[Task]:
    conn = build_seed_db(world)
    blob = conn.serialize()
    ctx = Context(
        world,
        episode_template(blob),
        random.Random(world.seed * 1009 + world.scale),
        fingerprint(conn),
        random.Random(world.seed * 2029 + world.scale * 13 + 5),
    )
    conn.close()
    return [
        *_clean_first(ctx, _single(ctx)),
        *_clean_first(ctx, _batch(ctx)),
        *_clean_first(ctx, _long(ctx)),
        *_clean_first(ctx, _hard(ctx)),
    ]


def _clean_first(ctx: Context, tasks: list[Task]) -> list[Task]:
    """Put a task whose gold path meets no ``Error:`` first in its tier (renumbered), so the first task of a
    tier, the one integrations and demos play, is a clean walk-through (an unknown PO is read as an error)."""
    first = next(k for k, task in enumerate(tasks) if not ctx.errors(task))
    ordered = [tasks[first], *tasks[:first], *tasks[first + 1 :]]
    for n, task in enumerate(ordered, start=1):
        task.id = f"{task.tier}-{n}"
    return ordered


def _single(ctx: Context) -> list[Task]:
    groups: dict[str, list[V1Invoice]] = defaultdict(list)
    for inv in ctx.received():
        if inv.trap not in NOT_SINGLE:
            groups[inv.trap].append(inv)
    kinds = sorted(groups)
    ctx.rng.shuffle(kinds)
    tasks = []
    for n, kind in enumerate(kinds, start=1):
        inv = ctx.rng.choice(groups[kind])
        tasks.append(_single_task(ctx, f"single-{n}", inv))
    return tasks


# ------------------------------------------------------------------ single tasks: a trap and its control
CONTROLS: dict[str, tuple[str, str | None]] = {
    "clean": ("approve_invoice", None),
    "blocked_supplier": ("hold_invoice", "SUPPLIER_BLOCKED"),
    "missing_po": ("reject_invoice", "MISSING_PO"),
}
"""The plain control kinds and the decision each gets: (tool, reason code)."""


def trap_of(scope: Sequence[str], kinds: dict[str, str]) -> str:
    """The trap document of a single task (``kinds``: trap kind by invoice ID). A control is ``clean`` or, next
    to a trap that is not itself a control kind, a blocked or missing-PO one; so this is never ambiguous."""
    others = [iid for iid in scope if kinds[iid] != "clean"]
    if len(others) == 1:
        return others[0]
    (trap,) = [iid for iid in others if kinds[iid] not in CONTROLS]
    return trap


def _single_task(ctx: Context, task_id: str, trap: V1Invoice) -> Task:
    """The trap next to the first control (in a seeded order) whose gold decision differs from the trap's."""
    actor = trap.design_actor
    for control in _control_candidates(ctx, trap):
        scope = [trap.invoice_id, control.invoice_id]
        ctx.controls.shuffle(scope)
        task = _task(ctx, task_id, "single", actor, scope)
        decided = _decisions(task)
        if decided[control.invoice_id] == CONTROLS[control.trap] != decided[trap.invoice_id]:
            return task
    raise RuntimeError(f"{task_id}: no control document fits trap {trap.invoice_id} ({trap.trap})")


def _control_candidates(ctx: Context, trap: V1Invoice) -> list[V1Invoice]:
    """Control documents for ``trap`` in a seeded order, kind by kind (only kinds whose decision differs from
    what the trap was planted to get), the documents of a kind shuffled. Next to a non-approve trap a clean
    control comes first half of the time, else the other kinds in a random order; a trap that is itself a
    control kind gets a clean control only (so ``trap_of`` can tell them apart)."""
    answer = _intended_decision(trap)
    kinds = [k for k in CONTROLS if k != "clean" and CONTROLS[k] != answer and trap.trap not in CONTROLS]
    ctx.controls.shuffle(kinds)
    if CONTROLS["clean"] != answer:
        kinds.insert(0 if ctx.controls.random() < 0.5 else len(kinds), "clean")
    apart = _apart(ctx, trap)
    ordered: list[V1Invoice] = []
    for kind in kinds:
        pool = [i for i in ctx.received() if i.trap == kind and apart(i) and _plain(ctx, i, trap.design_actor)]
        ctx.controls.shuffle(pool)
        ordered += pool
    return ordered


def _intended_decision(inv: V1Invoice) -> tuple[str, str | None]:
    verb, _, code = inv.intended.partition(":")
    return (f"{verb}_invoice", code if verb in ("reject", "hold") else None)


def _apart(ctx: Context, trap: V1Invoice) -> Callable[[V1Invoice], bool]:
    """Whether a document shares no supplier and no PO (printed or captured) with the trap's planted group."""
    group = [i for i in ctx.world.invoices if i.group == trap.group]
    suppliers = {i.supplier.supplier_id for i in group}
    pos = {p for i in group for p in _po_numbers(i)}

    def apart(inv: V1Invoice) -> bool:
        return inv.group != trap.group and inv.supplier.supplier_id not in suppliers and not _po_numbers(inv) & pos

    return apart


def _po_numbers(inv: V1Invoice) -> set[str]:
    return {p for p in (inv.po_number, inv.capture.po_number if inv.capture else None) if p}


def _plain(ctx: Context, inv: V1Invoice, actor: str) -> bool:
    """A control is plain: a clean one is a domestic invoice on a PO, captured as printed, within the actor's
    limit (so its answer is approve, not a reverse charge, a Kleinbetrag or an escalation)."""
    if inv.trap != "clean":
        return True
    limit = next(a.limit_cents for a in ctx.world.approvers if a.approver_id == actor)
    return (
        inv.supplier.country == "DE"
        and inv.kind == "invoice"
        and inv.po_number is not None
        and inv.capture is None
        and (limit is None or inv.gross_cents <= limit)
    )


def _decisions(task: Task) -> dict[str, tuple[str, str | None]]:
    """Each document's gold decision: (tool, reason code)."""
    return {
        a["arguments"]["invoice_id"]: (a["name"], a["arguments"].get("reason_code"))
        for a in task.gold_actions
        if a["name"] in WRITES and a["name"] != "capture_invoice"
    }


def _actors(ctx: Context, roles: Sequence[str]) -> list[str]:
    return [a.approver_id for a in ctx.world.approvers if a.role in roles]


def _batch(ctx: Context) -> list[Task]:
    received = ctx.received()
    by_supplier: dict[str, list[str]] = defaultdict(list)
    by_group: dict[int, list[str]] = defaultdict(list)
    for inv in received:
        by_supplier[inv.supplier.supplier_id].append(inv.invoice_id)
        by_group[inv.group].append(inv.invoice_id)
    suppliers = sorted((v for v in by_supplier.values() if 3 <= len(v) <= 10), key=lambda v: v[0])
    related = [by_group[g] for g in sorted(by_group) if len(by_group[g]) > 1]
    actors = _actors(ctx, ("Teamleiter", "Teamleiter", "Abteilungsleiter", "Bereichsleiter"))
    tasks: list[Task] = []
    while len(tasks) < COUNTS["batch"]:
        if len(tasks) % 2 == 0 and suppliers:
            scope = list(suppliers.pop(ctx.rng.randrange(len(suppliers))))
        else:
            scope = []
            while len(scope) < 4:
                scope += [i for i in ctx.rng.choice(related) if i not in scope]
        scope = sorted(scope[:10])  # as the scanner produced them: ID order, which is capture order
        task = _task(ctx, f"batch-{len(tasks) + 1}", "batch", ctx.rng.choice(actors), scope)
        if _fixed_decisions_fail(ctx, task):
            tasks.append(task)
    return tasks


def _long(ctx: Context) -> list[Task]:
    inboxes = sorted({i.inbox for i in ctx.received()})
    actors = _actors(ctx, ("Teamleiter", "Abteilungsleiter"))
    tasks: list[Task] = []
    for attempt in range(10 * COUNTS["long"]):
        if len(tasks) == COUNTS["long"]:
            break
        inbox = inboxes[attempt % len(inboxes)]
        scope = sorted(i.invoice_id for i in ctx.received() if i.inbox == inbox)
        actor = ctx.rng.choice(actors)
        opening = _inbox_order(ctx, inbox, actor)
        task = _task(ctx, f"long-{len(tasks) + 1}", "long", actor, scope, opening)
        if _fixed_decisions_fail(ctx, task):
            tasks.append(task)
    return tasks


def _hard(ctx: Context) -> list[Task]:
    received = ctx.received()
    dense = [i for i in received if any(i.trap.startswith(d) or d in i.trap for d in DENSE)]
    groups: dict[int, list[str]] = defaultdict(list)
    for inv in dense:
        groups[inv.group].append(inv.invoice_id)
    chains = [g for g in groups.values() if len(g) > 1]
    actors = _actors(ctx, ("Abteilungsleiter", "Bereichsleiter"))
    tasks: list[Task] = []
    while len(tasks) < COUNTS["hard"]:
        scope: list[str] = []
        for chain in ctx.rng.sample(chains, 3):
            scope += chain
        pool = [i.invoice_id for i in dense if i.invoice_id not in scope]
        scope += ctx.rng.sample(pool, min(len(pool), ctx.rng.randint(12, 16) - len(scope)))
        scope = _newest_first(ctx, scope)
        task = _task(ctx, f"hard-{len(tasks) + 1}", "hard", ctx.rng.choice(actors), scope)
        if _fixed_decisions_fail(ctx, task):
            tasks.append(task)
    return tasks


def _newest_first(ctx: Context, scope: list[str]) -> list[str]:
    """Received date descending, ties by ID descending: the reverse of processing order (an inbox view)."""
    dates = {i.invoice_id: i.received_date for i in ctx.received()}
    return sorted(scope, key=lambda iid: (dates[iid], iid), reverse=True)


# ------------------------------------------------------------------ one task
def _task(ctx: Context, task_id: str, tier: str, actor: str, scope: list[str], opening: str | None = None) -> Task:
    opening = opening or _list_order(ctx, actor, scope)
    gold = ctx.solve(actor, opening)
    task = Task(task_id, tier, actor, scope, opening, gold, seed_fingerprint=ctx.fingerprint)
    task.wrong_actions = _wrong_paths(ctx, task)
    if len(task.wrong_actions) < 3:
        raise RuntimeError(f"{task_id}: only {len(task.wrong_actions)} wrong paths differ from gold")
    return task


def _actor_line(ctx: Context, actor: str) -> str:
    phrases = load_v1_asset("work_orders.json")
    who = next(a for a in ctx.world.approvers if a.approver_id == actor)
    return str(ctx.rng.choice(phrases["actor_lines"])).format(name=who.name, role=who.role, approver_id=actor)


def _list_order(ctx: Context, actor: str, scope: Sequence[str]) -> str:
    phrases = load_v1_asset("work_orders.json")
    opening = str(ctx.rng.choice(phrases["openings"])).format(invoices=", ".join(scope))
    return " ".join(p for p in (opening, _actor_line(ctx, actor), ctx.rng.choice(phrases["closings"])) if p)


def _inbox_order(ctx: Context, inbox: str, actor: str) -> str:
    phrases = load_v1_asset("work_orders.json")
    return f"{str(ctx.rng.choice(phrases['inbox_openings'])).format(inbox=inbox)} {_actor_line(ctx, actor)}"


def writes(actions: Sequence[Any]) -> list[Any]:
    return [a for a in actions if a["name"] in WRITES]


WRITES = ("capture_invoice", "approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice")
_SWAP = {
    "DUPLICATE": "INVALID_PO",
    "MISSING_PO": "INVALID_PO",
    "INVALID_PO": "MISSING_PO",
    "VAT_ERROR": "INVOICE_INCOMPLETE",
    "INVOICE_INCOMPLETE": "VAT_ERROR",
    "CREDIT_NO_ORIGINAL": "CREDIT_ORIGINAL_REJECTED",
    "CREDIT_ORIGINAL_REJECTED": "CREDIT_NO_ORIGINAL",
    "CREDIT_EXCEEDS_ORIGINAL": "CREDIT_NO_ORIGINAL",
    "SUPPLIER_BLOCKED": "PO_EXCEEDED",
    "PO_EXCEEDED": "QUANTITY_NOT_RECEIVED",
    "QUANTITY_NOT_RECEIVED": "PRICE_VARIANCE",
    "PRICE_VARIANCE": "QUANTITY_NOT_RECEIVED",
    "CREDIT_ORIGINAL_OPEN": "SUPPLIER_BLOCKED",
}


def _wrong_paths(ctx: Context, task: Task) -> list[dict[str, Any]]:
    gold_state = ctx.final(task.actor, task.gold_actions)
    kept: list[dict[str, Any]] = []
    seen: list[BookState] = []
    for kind, actions in _mutations(ctx, task):
        if actions is None:
            continue
        state = ctx.final(task.actor, actions)
        if state != gold_state and state not in seen:
            kept.append({"kind": kind, "actions": actions})
            seen.append(state)
        if len(kept) == 6:
            break
    return kept


def _mutations(ctx: Context, task: Task) -> list[tuple[str, list[Any] | None]]:
    decided = writes(task.gold_actions)
    decisions = [a for a in decided if a["name"] != "capture_invoice"]

    def replace(pick: Any, new: Any) -> list[Any] | None:
        for index, action in enumerate(decided):
            if action["name"] != "capture_invoice" and pick(action):
                return [*decided[:index], new(action), *decided[index + 1 :]]
        return None

    def iid(a: Any) -> str:
        return str(a["arguments"]["invoice_id"])

    other = next(i.invoice_id for i in ctx.received() if i.invoice_id not in task.scope)
    return [
        ("listed_order", writes(ctx.solve(task.actor, task.work_order, order="listed"))),
        ("id_order", writes(ctx.solve(task.actor, task.work_order, order="id"))),
        ("capture_not_fixed", writes(ctx.solve(task.actor, task.work_order, fix=False))),
        ("tax_not_checked", writes(ctx.solve(task.actor, task.work_order, skip=frozenset({"tax"})))),
        ("wrong_reason_code", replace(lambda a: "reason_code" in a["arguments"], _other_code)),
        ("approve_instead", replace(lambda a: a["name"] != "approve_invoice", lambda a: _approve(iid(a)))),
        ("reject_approved", replace(lambda a: a["name"] == "approve_invoice", lambda a: _reject(iid(a)))),
        ("missing_decision", decided[:-1] if decisions else None),
        ("extra_invoice", [*decided, _approve(other)]),
        ("approve_all", [_approve(i) for i in task.scope]),
    ]


def _approve(invoice_id: str) -> dict[str, Any]:
    return {"name": "approve_invoice", "arguments": {"invoice_id": invoice_id}}


def _reject(invoice_id: str) -> dict[str, Any]:
    return {"name": "reject_invoice", "arguments": {"invoice_id": invoice_id, "reason_code": "VAT_ERROR"}}


def _other_code(action: dict[str, Any]) -> dict[str, Any]:
    args = dict(action["arguments"])
    args["reason_code"] = _SWAP[args["reason_code"]]
    return {"name": action["name"], "arguments": args}


def _fixed_decisions_fail(ctx: Context, task: Task) -> bool:
    """No single fixed decision for every document (approve, any hold or reject code) gives the gold books."""
    gold = ctx.final(task.actor, task.gold_actions)
    for name, code in [
        ("approve_invoice", None),
        *(("reject_invoice", c) for c in _SWAP if c in REJECTS),
        *(("hold_invoice", c) for c in _SWAP if c not in REJECTS),
    ]:
        args = {} if code is None else {"reason_code": code}
        if ctx.final(task.actor, [{"name": name, "arguments": {"invoice_id": i, **args}} for i in task.scope]) == gold:
            return False
    return True


REJECTS = frozenset(get_args(RejectCode))
