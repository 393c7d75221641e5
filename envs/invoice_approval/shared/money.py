"""Money is integer cents. VAT is rounded half up to the cent with ``decimal``, never with floats.

Python's ``round(5.50 * 0.19, 2)`` gives 1.04 (binary floats cannot hold 1.045); the correct commercial
rounding gives 1.05. Every amount in the database, the tools and the grader is an ``int`` of cents.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

STANDARD_RATE = 19
REDUCED_RATE = 7
REDUCED_RATE_CATEGORIES = frozenset({"books", "food"})


def vat_cents(net_cents: int, rate_percent: int) -> int:
    """VAT on ``net_cents`` at ``rate_percent``, rounded half up to the cent."""
    exact = Decimal(net_cents) * Decimal(rate_percent) / Decimal(100)
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def gross_cents(net_cents: int, rate_percent: int) -> int:
    return net_cents + vat_cents(net_cents, rate_percent)


def required_rate(category: str) -> int:
    """7 % for books and food (Anlage 2 UStG), 19 % for everything else a machine builder buys."""
    return REDUCED_RATE if category in REDUCED_RATE_CATEGORIES else STANDARD_RATE


def net_for_gross(target_gross: int, rate_percent: int) -> int | None:
    """A net amount whose correct gross is exactly ``target_gross``, or None if no net reaches it."""
    guess = int(Decimal(target_gross) * 100 / Decimal(100 + rate_percent))
    for net in range(guess - 3, guess + 4):
        if net > 0 and gross_cents(net, rate_percent) == target_gross:
            return net
    return None


def within_po_tolerance(po_net: int, invoiced: int, net: int) -> bool:
    """Rule 4: invoiced + net <= 102 % of the PO net, in integers: 100 * (invoiced + net) <= 102 * po_net."""
    return 100 * (invoiced + net) <= 102 * po_net


def fmt_eur(cents: int) -> str:
    """German display of an amount: 1234567 -> '12.345,67 EUR'."""
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(cents), 100)
    return f"{sign}{euros:,}".replace(",", ".") + f",{rest:02d} EUR"
