"""What every version's honest split shares: what an agent could memorise of a company, and the search for
train seeds whose companies share none of it with the evaluation company.

A policy trained on the company it is evaluated on can learn the books instead of the job (which supplier is
blocked, which invoice is a duplicate). So each version's train split uses companies generated from other seeds,
and a seed is used only if its company shares nothing an agent could memorise with the shipped one: no supplier
name, VAT ID or IBAN, no invoice (the same supplier name, supplier invoice number and gross), no work-order text.
Internal IDs (``ER-2026-00001``, ``K-70001``) are numbered alike in every company and say nothing about a record,
so they are not compared. The choice of seeds is deterministic: the first qualifying seeds from the version's
start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from .db import CANONICAL_SEED, connect_bytes
from .tasks import Task

MAX_TRIES: Final = 1_000


class Company(Protocol):
    """What the split compares of a company, in any version: its seed database and its tasks."""

    @property
    def seed_bytes(self) -> bytes: ...

    @property
    def tasks(self) -> Mapping[str, Task]: ...


def memorable(bundle: Company) -> dict[str, set[Any]]:
    """What an agent could memorise of a company, by kind (compared between companies)."""
    conn = connect_bytes(bundle.seed_bytes)
    try:
        suppliers = conn.execute("SELECT name, vat_id, iban FROM suppliers").fetchall()
        invoices = conn.execute(
            "SELECT s.name, i.supplier_invoice_no, i.gross_cents FROM invoices i JOIN suppliers s USING (supplier_id)"
        ).fetchall()
    finally:
        conn.close()
    return {
        "supplier names": {row[0] for row in suppliers},
        "VAT IDs": {row[1] for row in suppliers},
        "IBANs": {row[2] for row in suppliers},
        "invoices": set(invoices),
        "work orders": {task.work_order for task in bundle.tasks.values()},
    }


def shared_with(bundle: Company, other: Company) -> dict[str, set[Any]]:
    """What two companies share, by kind (empty sets when they are disjoint)."""
    mine, theirs = memorable(bundle), memorable(other)
    return {kind: mine[kind] & theirs[kind] for kind in mine}


def qualifying_seeds(load: Callable[[int], Company], start: int, count: int, unusable: type[Exception]) -> list[int]:
    """The first ``count`` seeds from ``start`` whose company ``load`` can build (it raises ``unusable``
    otherwise) and which shares nothing memorable with ``load(CANONICAL_SEED)``, the evaluation company."""
    evaluation = load(CANONICAL_SEED)
    seeds: list[int] = []
    for seed in range(start, start + MAX_TRIES):
        if len(seeds) == count:
            break
        try:
            candidate = load(seed)
        except unusable:
            continue
        if not any(shared_with(candidate, evaluation).values()):
            seeds.append(seed)
    return seeds
