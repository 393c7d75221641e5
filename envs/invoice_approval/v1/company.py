"""What the policy takes as fixed: the company, its VAT ID, the tax treatment of a supplier's invoice, the accounts.

The treatment follows from two facts a clerk can read: the supplier's country and what it sells. A German
supplier invoices with German VAT; a supplier from another EU state invoices without German VAT, and the
company owes the tax itself: on goods as an intra-EU acquisition (§ 1a UStG, § 13 Abs. 1 Nr. 6), on services
as the recipient of a reverse-charge supply (§ 13b Abs. 1 and Abs. 5 UStG). Sources: notes/invoice_v1_sources.md.
"""

from __future__ import annotations

from typing import Final, Literal

Treatment = Literal["domestic", "reverse_charge", "intra_eu_acquisition"]

COMPANY_NAME: Final = "Alpenwerk Maschinenbau GmbH"
COMPANY_VAT_ID: Final = "DE814526733"  # valid ISO 7064 MOD 11,10 check digit; fictional
COMPANY_STREET: Final = "Hansastraße 27"
COMPANY_POSTAL: Final = "81373"
COMPANY_CITY: Final = "München"

SERVICE_CATEGORIES: Final = frozenset({"services", "it_maintenance", "software"})
"""Sonstige Leistungen (§ 3 Abs. 9 UStG); every other category is a delivery of goods (Lieferung)."""
SELF_ASSESSED_RATE: Final = 19  # EU suppliers sell only 19 % categories (goods, tools, services, IT)

PAYABLES: Final = "1600"
INPUT_VAT: Final = {19: "1576", 7: "1571"}
RC_INPUT, RC_OUTPUT = "1577", "1787"  # Abziehbare Vorsteuer / Umsatzsteuer nach § 13b UStG 19 %
IGE_INPUT, IGE_OUTPUT = "1574", "1774"  # Vorsteuer / Umsatzsteuer aus innergemeinschaftlichem Erwerb 19 %

NOTE_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "reverse_charge": ("Steuerschuldnerschaft des Leistungsempfängers", "Reverse Charge"),
    "intra_eu_acquisition": ("Steuerfreie innergemeinschaftliche Lieferung", "Intra-Community supply"),
}
"""The notes § 14a Abs. 5 and Abs. 3 UStG require, and the English wording Art. 226 MwStSystRL allows."""


def is_service(category: str) -> bool:
    return category in SERVICE_CATEGORIES


def treatment(country: str, category: str) -> Treatment:
    """Domestic for a German supplier; else reverse charge for services, intra-EU acquisition for goods."""
    if country == "DE":
        return "domestic"
    return "reverse_charge" if is_service(category) else "intra_eu_acquisition"


def has_required_note(notes: tuple[str, ...] | list[str], kind: Treatment) -> bool:
    """Whether one of the printed notes contains a phrase the treatment requires (case-insensitive)."""
    wanted = [p.lower() for p in NOTE_PHRASES.get(kind, ())]
    return any(p in note.lower() for note in notes for p in wanted)
