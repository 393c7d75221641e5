"""The failure report of any InvoiceApproval version: one labelled row per field that differs from the gold books.

A version's graded books hold states as tuples (an invoice's status, reason code, assignee, ...; a PO's invoiced
net and status, ...). A report that printed those tuples whole made a person find the one differing position in
a row of unlabelled values; this one names the record and the field, shows both values as a person reads them
(cents as ``1,234.56 €``), and says which rule of the policy decides it. Each version describes its tuples
once (a :class:`BookLayout` in its ``grading.py``); comparing and wording them is the same for all versions.

Rows follow the format of every officegym failure report (``officegym.evaluation.failures``): flat dicts of
strings ``kind``, ``record``, ``field``, ``expected``, ``actual``, ``rule``. Here ``kind`` is ``invoice``,
``capture`` (a captured field of a v1 document), ``ledger line`` or ``purchase order``; ``record`` is the
invoice ID (a ledger line's invoice) or PO number. Order: each invoice by ID with its fields in the layout's
order and then its ledger lines by account, then each purchase order by number. The report is empty exactly
when the books match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .grading import GradedBooks, LedgerKey
from .policy_rules import PolicyRules

OUT_OF_SCOPE = "not in the work order: leave it as it was"
EMPTY = "(empty)"


def text(value: Any) -> str:
    """A stored value as it reads; a missing one as ``(empty)``."""
    return EMPTY if value is None or value == "" else str(value)


def euros(value: Any) -> str:
    """Integer cents as euros, ``123456`` -> ``1,234.56 €`` (exact: integer arithmetic, never floats)."""
    if value is None:
        return EMPTY
    cents = int(value)
    whole, rest = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}{whole:,}.{rest:02d} €"


def percent(value: Any) -> str:
    return EMPTY if value is None else f"{value} %"


@dataclass(frozen=True)
class Field:
    """One position of a state tuple: its label, the row kind it is reported under (``invoice``, ``capture``,
    ``purchase order``), and how a value reads."""

    label: str
    kind: str = "invoice"
    show: Callable[[Any], str] = text


@dataclass(frozen=True)
class BookLayout:
    """What a version's states hold, position by position, and the policy whose rules decide them. A PO field
    whose value is a tuple (v1's quantities, one per PO line) is reported line by line."""

    invoice: tuple[Field, ...]
    purchase_order: tuple[Field, ...]
    rules: PolicyRules


def failure_rows(
    final: GradedBooks, gold: GradedBooks, scope: Sequence[str], layout: BookLayout
) -> list[dict[str, str]]:
    """Every field where ``final`` differs from ``gold``: the work order's invoices and any other invoice
    changed (its rule: ``OUT_OF_SCOPE``), each with its ledger lines, then the purchase orders."""
    in_scope = set(scope)
    invoices = {iid for iid in scope if final.invoices.get(iid) != gold.invoices.get(iid)}
    invoices |= {
        iid for iid, state in final.invoices.items() if iid not in in_scope and state != gold.invoices.get(iid)
    }
    ledger = _ledger_groups(final.ledger, gold.ledger)
    rows: list[dict[str, str]] = []
    for iid in sorted(invoices | {key[0] for key in ledger}):
        rule = _invoice_rule(iid, gold, in_scope, layout.rules)
        if iid in invoices:
            expected, actual = gold.invoices.get(iid), final.invoices.get(iid)
            rows += _state_rows(iid, expected, actual, layout.invoice, rule, layout.rules.capture)
        rows += [
            _row("ledger line", iid, f"account {account}", want, got, rule)
            for (owner, account), (want, got) in ledger.items()
            if owner == iid
        ]
    for number, state in sorted(final.purchase_orders.items()):
        if state != gold.purchase_orders.get(number):
            rows += _state_rows(number, gold.purchase_orders.get(number), state, layout.purchase_order, "", "")
    return rows


def _invoice_rule(iid: str, gold: GradedBooks, in_scope: set[str], rules: PolicyRules) -> str:
    if iid not in in_scope:
        return OUT_OF_SCOPE
    state = gold.invoices.get(iid)
    return "" if state is None else rules.for_outcome(state[0], state[1])


def _state_rows(
    record: str,
    expected: tuple[Any, ...] | None,
    actual: tuple[Any, ...] | None,
    fields: tuple[Field, ...],
    rule: str,
    capture_rule: str,
) -> list[dict[str, str]]:
    """One row per differing position of two states of one record (a missing state: one row saying so). A
    captured field is decided by the policy's capture step, unless the record was not the agent's to touch."""
    if expected is None or actual is None:
        want, got = ("no such record" if state is None else "present" for state in (expected, actual))
        return [_row(fields[0].kind, record, "record", want, got, rule)]
    rows: list[dict[str, str]] = []
    for field, want, got in zip(fields, expected, actual, strict=True):
        if want == got:
            continue
        field_rule = capture_rule if field.kind == "capture" and rule != OUT_OF_SCOPE else rule
        if isinstance(want, tuple) or isinstance(got, tuple):
            rows += _line_rows(record, field, tuple(want or ()), tuple(got or ()), field_rule)
        else:
            rows.append(_row(field.kind, record, field.label, field.show(want), field.show(got), field_rule))
    return rows


def _line_rows(
    record: str, field: Field, want: tuple[Any, ...], got: tuple[Any, ...], rule: str
) -> list[dict[str, str]]:
    """A per-line field (PO line quantities), one row per line that differs, lines numbered from 1."""
    size = max(len(want), len(got))
    padded = [(want[i] if i < len(want) else None, got[i] if i < len(got) else None) for i in range(size)]
    return [
        _row(field.kind, record, f"line {i + 1} {field.label}", field.show(a), field.show(b), rule)
        for i, (a, b) in enumerate(padded)
        if a != b
    ]


def _ledger_groups(final: Counter[LedgerKey], gold: Counter[LedgerKey]) -> dict[tuple[str, str], tuple[str, str]]:
    """The (invoice, account) pairs whose lines differ, each with the lines only gold has (expected) and the
    lines only the final books have (actual). Only the difference is shown, so the rows are the same whether
    the ledgers are whole or the episode's changes (``book_changes.py``)."""
    missing, extra = gold - final, final - gold
    pairs = sorted({key[:2] for key in (*missing, *extra)})
    return {pair: (_lines(missing, pair), _lines(extra, pair)) for pair in pairs}


def _lines(ledger: Counter[LedgerKey], pair: tuple[str, str]) -> str:
    found = sorted((key, n) for key, n in ledger.items() if key[:2] == pair)
    return "; ".join(_line(key, n) for key, n in found) or "(none)"


def _line(key: LedgerKey, count: int) -> str:
    _, _, debit, credit = key
    sides = (("debit", debit), ("credit", credit))
    worded = " ".join(f"{side} {euros(amount)}" for side, amount in sides if amount) or "0.00 €"
    return worded if count == 1 else f"{count} × {worded}"


def _row(kind: str, record: str, field: str, expected: str, actual: str, rule: str) -> dict[str, str]:
    return {"kind": kind, "record": record, "field": field, "expected": expected, "actual": actual, "rule": rule}
