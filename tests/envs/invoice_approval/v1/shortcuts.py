"""The shortcut battery of InvoiceApproval-v1: cheap policies that learn the grader instead of the job.

``python -m officegym.tests.envs.invoice_approval.v1.shortcuts [companies]`` prints, per policy, how many tasks
it passes on the shipped company and on generated ones, and the order-sensitivity of the tiers; the tests in
``test_shortcuts.py`` pin the claims. Everything runs through the tools (``sandbox.call``), never the database.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from officegym.envs.invoice_approval.shared.tasks import Task
from officegym.envs.invoice_approval.v1.bundle import Bundle, load_bundle
from officegym.envs.invoice_approval.v1.grading import book_state
from officegym.envs.invoice_approval.v1.rules import INBOX, INVOICE_ID, solve
from officegym.envs.invoice_approval.v1.sandbox import call, open_episode
from officegym.envs.invoice_approval.v1.tools import HoldCode, RejectCode

REJECT_CODES: tuple[str, ...] = RejectCode.__args__  # type: ignore[attr-defined]
HOLD_CODES: tuple[str, ...] = HoldCode.__args__  # type: ignore[attr-defined]
Call = Callable[[dict[str, Any]], str]
Policy = Callable[[Call, Task], None]


def scope_of(run: Call, task: Task) -> list[str]:
    """The documents a work order names, as a policy that reads nothing else would find them."""
    inbox = INBOX.search(task.work_order)
    if inbox is None:
        return list(dict.fromkeys(INVOICE_ID.findall(task.work_order)))
    ids: list[str] = []
    cursor = ""
    while True:
        args = {"status": "received", "inbox": inbox.group(0), **({"cursor": cursor} if cursor else {})}
        page = json.loads(run({"name": "list_invoices", "arguments": args}))
        ids += [row["invoice_id"] for row in page["invoices"]]
        cursor = page["next_cursor"]
        if not cursor:
            return ids


def fixed(name: str, **extra: str) -> Policy:
    def play(run: Call, task: Task) -> None:
        for iid in scope_of(run, task):
            run({"name": name, "arguments": {"invoice_id": iid, **extra}})

    return play


def solver(**kwargs: Any) -> Policy:
    def play(run: Call, task: Task) -> None:
        solve(run, task.work_order, **kwargs)

    return play


def nothing(run: Call, task: Task) -> None:
    return None


def policies(bundle: Bundle) -> dict[str, Policy]:
    top = max(
        (a for a in _approvers(bundle) if a["limit_cents"] is None), key=lambda a: a["approver_id"]
    )  # any fixed target
    table: dict[str, Policy] = {"do_nothing": nothing, "approve_all": fixed("approve_invoice")}
    table |= {f"reject_all_{c}": fixed("reject_invoice", reason_code=c) for c in REJECT_CODES}
    table |= {f"hold_all_{c}": fixed("hold_invoice", reason_code=c) for c in HOLD_CODES}
    table["escalate_all"] = fixed("escalate_invoice", approver_id=top["approver_id"])
    table["solver_listed_order"] = solver(order="listed")
    table["solver_id_order"] = solver(order="id")
    table["solver_no_capture_fix"] = solver(fix=False)
    table["solver_no_tax_check"] = solver(skip=frozenset({"tax"}))
    table["solver"] = solver()
    return table


def _approvers(bundle: Bundle) -> list[dict[str, Any]]:
    task = next(iter(bundle.tasks.values()))
    episode = open_episode(bundle.template, task.actor)
    rows: list[dict[str, Any]] = json.loads(call(episode, {"name": "list_approvers", "arguments": {}}).observation)[
        "approvers"
    ]
    episode.conn.close()
    return rows


def passes(bundle: Bundle, task: Task, policy: Policy) -> bool:
    episode = open_episode(bundle.template, task.actor)
    try:
        policy(lambda action: call(episode, action).observation, task)
        return book_state(episode.conn) == bundle.gold_state(task.id)
    finally:
        episode.conn.close()


def decisions(task: Task) -> list[dict[str, Any]]:
    """A task's gold decisions (writes but captures), in gold order: what a lookup table would memorise."""
    return [
        a
        for a in task.gold_actions
        if a["name"] in ("approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice")
    ]


def lookup_passes(bundle: Bundle, task: Task, table: dict[str, list[dict[str, Any]]]) -> bool:
    """Play another company's gold decisions for the same task id on this task's documents (listed order)."""
    memorised = table.get(task.id)
    if memorised is None:
        return False

    def play(run: Call, task: Task) -> None:
        for iid, action in zip(scope_of(run, task), memorised, strict=False):
            run({"name": action["name"], "arguments": {**action["arguments"], "invoice_id": iid}})

    return passes(bundle, task, play)


def order_matters(bundle: Bundle, task: Task) -> bool:
    """Whether deciding in listed order or in ID order (each rule applied right) ends in other books."""
    return not passes(bundle, task, solver(order="listed")) or not passes(bundle, task, solver(order="id"))


def battery(seeds: list[int]) -> dict[str, Any]:
    bundles = [load_bundle(seed) for seed in seeds]
    result: dict[str, Any] = {"companies": seeds, "tasks_per_company": [len(b.tasks) for b in bundles]}
    per_policy: dict[str, Counter[str]] = {}
    for bundle in bundles:
        for name, policy in policies(bundle).items():
            counts = per_policy.setdefault(name, Counter())
            for task in bundle.tasks.values():
                counts[task.tier] += passes(bundle, task, policy)
    result["passed"] = {name: dict(sorted(c.items())) for name, c in per_policy.items()}
    order: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for bundle in bundles:
        for task in bundle.tasks.values():
            sizes[task.tier] += 1
            order[task.tier] += order_matters(bundle, task)
    result["order_matters"] = {tier: f"{order[tier]}/{sizes[tier]}" for tier in sizes}
    table = {task.id: decisions(task) for task in bundles[0].tasks.values()}
    looked = [lookup_passes(b, t, table) for b in bundles[1:] for t in b.tasks.values()]
    result["lookup_table"] = f"{sum(looked)}/{len(looked)} passed"
    return result


if __name__ == "__main__":
    print(json.dumps(battery([42, *(int(s) for s in sys.argv[1:])]), indent=1))
