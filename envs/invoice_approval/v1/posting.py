"""What approving a document posts: the ledger lines, the PO's invoiced amount and quantities, the credit mark.

The tools apply no policy, so an approval posts whatever it is given, and the ledger still balances. The
treatment is accounting, not company policy (sources: notes/invoice_v1_sources.md):

- German supplier: only the tax legally owed on the supply is deductible input VAT (§ 15 Abs. 1 Nr. 1 UStG;
  a higher amount shown is owed by the issuer under § 14c UStG, not deductible), at most the tax shown; the
  payable is the gross as invoiced (what the supplier asks); the rest of the gross is expense. A correct
  invoice posts net to expense, VAT to 1576/1571, gross to 1600.
- EU supplier: the payable is the gross as invoiced, all of it expense (German VAT on such an invoice is not
  legally owed, so not deductible); the company self-assesses 19 % of the net as output VAT and deducts the
  same as input VAT (§ 13b / § 1a with § 15 Abs. 1 Nr. 3 and 4 UStG): 1577/1787 or 1574/1774.
- A credit note posts the mirror image of the same amounts (§ 17 Abs. 1 UStG: the recipient corrects the
  input VAT it deducted), lowers its PO's invoiced amount and quantities, and marks the approved invoice it
  names as credited by its net.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..shared.money import required_rate, vat_cents
from .company import IGE_INPUT, IGE_OUTPUT, INPUT_VAT, PAYABLES, RC_INPUT, RC_OUTPUT, SELF_ASSESSED_RATE, Treatment


@dataclass(frozen=True)
class Line:
    account: str
    debit_cents: int
    credit_cents: int
    text: str


def invoice_lines(treatment: Treatment, category: str, expense: str, net: int, vat: int, gross: int) -> list[Line]:
    """The lines of an approved invoice (debits equal credits by construction)."""
    if treatment == "domestic":
        rate = required_rate(category)
        deductible = max(0, min(vat, vat_cents(net, rate)))
        return [
            Line(expense, gross - deductible, 0, "Aufwand/Wareneingang"),
            Line(INPUT_VAT[rate], deductible, 0, f"Vorsteuer {rate} %"),
            Line(PAYABLES, 0, gross, "Verbindlichkeit aLuL"),
        ]
    tax = vat_cents(net, SELF_ASSESSED_RATE)
    inp, out = (RC_INPUT, RC_OUTPUT) if treatment == "reverse_charge" else (IGE_INPUT, IGE_OUTPUT)
    return [
        Line(expense, gross, 0, "Aufwand/Wareneingang"),
        Line(PAYABLES, 0, gross, "Verbindlichkeit aLuL"),
        Line(inp, tax, 0, "Vorsteuer Steuerschuldner Leistungsempfänger 19 %"),
        Line(out, 0, tax, "Umsatzsteuer Steuerschuldner Leistungsempfänger 19 %"),
    ]


def mirrored(lines: list[Line]) -> list[Line]:
    """A credit note's lines: the invoice's with debit and credit swapped."""
    return [Line(x.account, x.credit_cents, x.debit_cents, f"Gutschrift: {x.text}") for x in lines]
