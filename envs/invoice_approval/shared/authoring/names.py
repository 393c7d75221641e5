"""Realistic fictional names and texts from ``assets/invoice_approval/shared/names.json``.

The asset groups texts by the spec's broad categories (goods, services, tools, IT, books, food, office) and
by trade; the generator's spend categories split IT into maintenance and software. ``TRADES`` maps one onto
the other, so a supplier's name, its invoices and its POs always fit what it sells.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

# generator category -> (asset category, trades it may use)
TRADES: dict[str, tuple[str, tuple[str, ...]]] = {
    "goods": ("goods", ()),
    "services": ("services", ()),
    "tools": ("tools", ()),
    "it_maintenance": ("IT", ("Hardware", "Wartung")),
    "software": ("IT", ("Software", "Lizenzen")),
    "books": ("books", ()),
    "food": ("food", ()),
    "office": ("office", ()),
}
FOREIGN_CATEGORIES = ("goods", "services", "tools", "it_maintenance", "software")


@dataclass(frozen=True)
class NameBook:
    """Draws names and texts from the asset with a caller's RNG (no global random state)."""

    data: dict[str, Any]

    def _fits(self, entry: dict[str, Any], category: str) -> bool:
        asset_category, trades = TRADES[category]
        return bool(entry["category"] == asset_category and (not trades or entry["trade"] in trades))

    def company(self, rng: random.Random, category: str, country: str) -> str:
        patterns = [p for p in self.data["supplier_name_patterns"][country] if self._fits(p, category)]
        if not patterns:  # a category the country's patterns do not cover: use the German ones
            patterns = [p for p in self.data["supplier_name_patterns"]["DE"] if self._fits(p, category)]
        surnames = self.data["surnames"][country]
        first, second = rng.sample(surnames, 2)
        return str(rng.choice(patterns)["pattern"]).format(
            surname=first, surname2=second, stem=rng.choice(self.data["company_stems"][country])
        )

    def person(self, rng: random.Random) -> str:
        return f"{rng.choice(self.data['first_names'])} {rng.choice(self.data['surnames']['DE'])}"

    def address(self, rng: random.Random, country: str) -> tuple[str, str, str]:
        """(street with number, postal code, city) in the country's format."""
        city = rng.choice(self.data["cities"][country])
        street = f"{rng.choice(self.data['streets'][country])} {rng.randint(1, 160)}"
        if country == "NL":
            letters = self.data["nl_postcode_letters"]
            pair = rng.choice(
                [
                    a + b
                    for a in letters["alphabet"]
                    for b in letters["alphabet"]
                    if a + b not in letters["excluded_pairs"]
                ]
            )
            return street, f"{rng.choice(city['postcode_digits'])} {pair}", city["city"]
        return street, rng.choice(city["postal_codes"]), city["city"]

    def text(self, rng: random.Random, category: str, kind: str) -> str:
        """An invoice line (``kind="invoice_lines"``) or PO text (``"po_descriptions"``) with its
        placeholders filled in."""
        asset_category, _ = TRADES[category]
        entries = [
            e
            for e in self.data["categories"][asset_category][kind]
            if self._fits({"category": asset_category, "trade": e["trade"]}, category)
        ]
        return str(rng.choice(entries)["text"]).format(
            kw=rng.randint(1, 13),
            quarter=1,
            month=rng.choice(self.data["month_names_de"][:3]),
            year=2026,
            lot=rng.randint(1000, 99999),
            qty=rng.randint(2, 50),
        )
