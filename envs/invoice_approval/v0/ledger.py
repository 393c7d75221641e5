"""The posting of an approved invoice: three ledger lines in SKR03.

Debit the expense account with the net, debit input VAT (1576 at 19 %, 1571 at 7 %) with the VAT, credit
1600 (Verbindlichkeiten aus Lieferungen und Leistungen) with the gross. Debits equal credits because
gross = net + VAT on every invoice the policy approves.
"""

from __future__ import annotations

from ..shared.entities import LedgerLine

INPUT_VAT_ACCOUNTS = {19: "1576", 7: "1571"}
PAYABLES_ACCOUNT = "1600"


def input_vat_account(rate_percent: int) -> str:
    """1571 for the reduced rate; 1576 for 19 % (and for any other rate, which the policy rejects)."""
    return INPUT_VAT_ACCOUNTS.get(rate_percent, "1576")


def ledger_lines(invoice_id: str, expense_account: str, net: int, rate: int, vat: int, gross: int) -> list[LedgerLine]:
    return [
        LedgerLine(invoice_id, expense_account, net, 0, "Aufwand/Wareneingang netto"),
        LedgerLine(invoice_id, input_vat_account(rate), vat, 0, f"Vorsteuer {rate} %"),
        LedgerLine(invoice_id, PAYABLES_ACCOUNT, 0, gross, "Verbindlichkeit aLuL"),
    ]
