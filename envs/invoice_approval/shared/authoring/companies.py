"""The people of every version's company: approvers by role and limit, and suppliers with names, addresses,
VAT IDs and IBANs, drawn from the name book and the category table that all versions ship in
``assets/invoice_approval/shared/``."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from ....core.assets import asset_path, read_json
from ..entities import Approver, Supplier
from .identifiers import make_iban, make_vat_id
from .names import FOREIGN_CATEGORIES, NameBook

N_BLOCKED = 4
COUNTRY_MIX = (("AT", 6), ("NL", 6))  # the rest are German


@cache
def load_asset(name: str) -> Any:
    """A JSON file from ``assets/invoice_approval/shared`` (cached: assets never change at run time)."""
    return read_json(asset_path("invoice_approval", "shared", name))


def make_approvers(rng: random.Random, config: dict[str, Any], names: NameBook) -> list[Approver]:
    """Several approvers per role, with random three-digit IDs so that ID order says nothing about role."""
    roles = [(r["role"], r["limit_eur"]) for r in config["approver_roles"] for _ in range(r["count"])]
    numbers = sorted(rng.sample(range(101, 400), len(roles)))
    rng.shuffle(roles)
    people: list[str] = []
    while len(people) < len(roles):
        person = names.person(rng)
        if person not in people:
            people.append(person)
    approvers = [
        Approver(f"AP-{n}", person, role, None if limit is None else limit * 100)
        for n, person, (role, limit) in zip(numbers, people, roles, strict=True)
    ]
    return sorted(approvers, key=lambda a: a.approver_id)


def make_suppliers(rng: random.Random, config: dict[str, Any], names: NameBook, scale: int = 1) -> list[Supplier]:
    """60 suppliers per scale; a few Austrian and Dutch ones among the categories they sell; four are blocked."""
    categories = [c for c, spec in config["categories"].items() for _ in range(spec["suppliers"] * scale)]
    rng.shuffle(categories)
    foreign_slots = [i for i, c in enumerate(categories) if c in FOREIGN_CATEGORIES]
    countries = ["DE"] * len(categories)
    chosen = rng.sample(foreign_slots, sum(n * scale for _, n in COUNTRY_MIX))
    for slot, country in zip(chosen, [c for c, n in COUNTRY_MIX for _ in range(n * scale)], strict=True):
        countries[slot] = country
    creditors = sorted(rng.sample(range(70001, 79999), len(categories)))
    suppliers: list[Supplier] = []
    used: set[str] = set()
    for creditor, category, country in zip(creditors, categories, countries, strict=True):
        name = unique_company_name(rng, names, category, country, used, scale)
        used.add(name)
        street, postal, city = names.address(rng, country)
        suppliers.append(
            Supplier(
                supplier_id=f"K-{creditor}",
                creditor_no=str(creditor),
                name=name,
                street=street,
                postal_code=postal,
                city=city,
                country=country,
                vat_id=make_vat_id(rng, country),
                iban=make_iban(rng, country),
                payment_terms=rng.choice(config["payment_terms"]),
                category=category,
            )
        )
    reasons = config["block_reasons"]  # one per blocked supplier at scale 1; they repeat in bigger companies
    for index, supplier in enumerate(rng.sample(suppliers, N_BLOCKED * scale)):
        supplier.is_blocked, supplier.block_reason = True, reasons[index % len(reasons)]
    return suppliers


NAME_TRIES = 20  # redraws of a taken name before a bigger company names a branch instead


def unique_company_name(
    rng: random.Random, names: NameBook, category: str, country: str, used: set[str], scale: int
) -> str:
    """A supplier name not yet ``used``. At scale 1 it redraws until free, as it always did (the canonical draws);
    a bigger company outgrows the name book (12 Austrian surnames and stems), so after ``NAME_TRIES`` redraws
    it takes the first free branch of the last name drawn ("..., Zweigniederlassung 2")."""
    name = names.company(rng, category, country)
    tries = 0
    while name in used:
        if scale > 1 and tries >= NAME_TRIES:
            return next(
                f"{name}, Zweigniederlassung {n}"
                for n in range(2, 10**6)
                if f"{name}, Zweigniederlassung {n}" not in used
            )
        name = names.company(rng, category, country)
        tries += 1
    return name
