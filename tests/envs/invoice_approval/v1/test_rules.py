"""The v1 policy against its planted traps, the document reader against every document, and generated
companies at 1x and 10x."""

from __future__ import annotations

import random

import pytest

from officegym.envs.invoice_approval.v1.authoring.seed_db import build_seed_db, document_of
from officegym.envs.invoice_approval.v1.authoring.task_builder import NOT_SINGLE, Context
from officegym.envs.invoice_approval.v1.authoring.world import generate_world
from officegym.envs.invoice_approval.v1.db import episode_template, fingerprint
from officegym.envs.invoice_approval.v1.document_text import render_text
from officegym.envs.invoice_approval.v1.reading import read_document

DECISIONS = ("approve_invoice", "reject_invoice", "hold_invoice", "escalate_invoice")


def _label(action: dict[str, object]) -> str:
    name, args = str(action["name"]), dict(action["arguments"])  # type: ignore[call-overload]
    if name == "approve_invoice":
        return "approve"
    if name == "escalate_invoice":
        return f"escalate:{args['approver_id']}"
    return f"{name.split('_')[0]}:{args['reason_code']}"


@pytest.mark.parametrize("seed", [42, 7])
def test_every_planted_document_alone_gets_its_intended_decision(seed: int) -> None:
    world = generate_world(seed)
    conn = build_seed_db(world)
    ctx = Context(world, episode_template(conn.serialize()), random.Random(0), fingerprint(conn))
    wrong = []
    for inv in ctx.received():
        if inv.trap in NOT_SINGLE:
            continue
        path = ctx.solve(inv.design_actor, f"Decide {inv.invoice_id}.")
        label = _label([a for a in path if a["name"] in DECISIONS][-1])
        if label != inv.intended:
            wrong.append((inv.invoice_id, inv.trap, inv.intended, label))
    assert wrong == []


def test_the_reader_reads_every_document_as_printed() -> None:
    for inv in generate_world(42).invoices:
        doc = document_of(inv)
        read = read_document(render_text(doc))
        assert read.capture_values() == {
            "supplier_invoice_no": doc.supplier_invoice_no,
            "invoice_date": doc.invoice_date.isoformat(),
            "po_number": doc.po_number,
            "corrects_no": doc.corrects_no,
            "net_cents": doc.net_cents,
            "vat_rate": doc.vat_rate,
            "vat_cents": doc.vat_cents,
            "gross_cents": doc.gross_cents,
        }, inv.invoice_id
        assert (read.seller_vat_id, read.buyer_vat_id, read.notes) == (
            doc.seller.vat_id,
            doc.buyer.vat_id,
            " ".join(doc.notes),
        )
        assert [(x.quantity, x.unit_price_cents, x.net_cents, x.po_line) for x in read.lines] == [
            (x.quantity, x.unit_price_cents, x.net_cents, x.po_line) for x in doc.lines
        ]


def test_ids_do_not_follow_arrival() -> None:
    received = [i for i in generate_world(42).invoices if i.status == "received"]
    by_id = [i.invoice_id for i in sorted(received, key=lambda i: i.invoice_id)]
    by_arrival = [i.invoice_id for i in sorted(received, key=lambda i: (i.received_date, i.invoice_id))]
    assert by_id != by_arrival


def test_generation_is_deterministic() -> None:
    first, second = build_seed_db(generate_world(5)), build_seed_db(generate_world(5))
    assert fingerprint(first) == fingerprint(second)


def test_a_company_at_10x_keeps_the_task_guarantees() -> None:
    """~80 s: company seed 7 at scale 10, every gold path 1.0 and every wrong path 0.0 through env.step."""
    import gymnasium as gym

    import officegym  # noqa: F401

    env = gym.make("officegym/InvoiceApproval-v1", company_seed=7, company_scale=10)
    inner = env.unwrapped
    assert len(inner.bundle.tasks) >= 100  # type: ignore[attr-defined]
    for task_id, task in inner.bundle.tasks.items():  # type: ignore[attr-defined]
        for actions, expected in [(task.gold_actions, 1.0), *((w["actions"], 0.0) for w in task.wrong_actions)]:
            env.reset(options={"task_id": task_id})
            for action in actions:
                env.step(action)
            assert env.step({"name": "finish", "arguments": {}})[1] == expected, task_id
    env.close()
