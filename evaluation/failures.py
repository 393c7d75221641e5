"""Failure rows: where an episode fell short of the gold outcome, one flat row per thing that differs.

Every env's ``failure_report()`` returns, and every results record stores under ``"failures"``, a list of
rows in one format, so ``officegym show``, the HTML report and a person's own script read any env the same way.
A row is a flat JSON object with exactly these keys, every value a string:

==========  =================================================================================================
``kind``    what sort of record differs: InvoiceApproval ``invoice``, ``capture`` (a captured field of a v1
            document), ``ledger line``, ``purchase order``; VendorReview ``missed gap``, ``false flag``,
            ``wrong decision``, ``unread document`` (and ``no submission``)
``record``  which one: an invoice ID (``ER-2026-00082``), a PO number, a requirement or document ID,
            ``recommendation`` for the decision
``field``   the labelled field that differs (``status``, ``reason code``, ``net amount``, ``account 1576``,
            ``line 1 invoiced quantity``, ``flagged``, ``decision``, ...)
``expected`` the gold value, as a person reads it (money as ``1,234.56 €``; ``(empty)`` for no value)
``actual``  the value the episode left
``rule``    the policy rule that decides it, where the grade knows it (``rule 5: VAT``), else ``""``
==========  =================================================================================================

One row per differing field (an invoice approved instead of rejected gives a ``status`` row, a ``reason code``
row and one row per ledger account it posted to). The domain orders the rows deterministically (InvoiceApproval:
by invoice, its fields in order, then its ledger lines, then POs; VendorReview: by kind, then ID). The list is
empty exactly when the episode scored full marks.

Results files written before this format hold ``{"kind", "item", "expected", "actual"}`` rows; :func:`as_rows`
reads those as ``record`` = ``item`` with an empty ``field`` and ``rule``, so old files still show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COLUMNS = ("kind", "record", "field", "expected", "actual", "rule")


def failure_rows(env: Any) -> list[dict[str, str]]:
    """The env's failure report in the format above; empty on full marks, and for an env that offers none
    (``failure_report`` raising ``TypeError``, the contract's default) or has no episode yet."""
    try:
        raw = env.unwrapped.failure_report()
    except (AttributeError, TypeError, RuntimeError):
        return []
    return as_rows(raw)


def as_rows(raw: Any) -> list[dict[str, str]]:
    """Rows in the format, whatever wrote them: every key present, every value a string, order kept; an older
    row's ``item`` becomes its ``record``. What is not a list of objects (a hand-edited file) gives no rows."""
    rows: list[dict[str, str]] = []
    for row in raw if isinstance(raw, list) else ():
        if not isinstance(row, Mapping):
            continue
        record = row.get("record", row.get("item", ""))
        values = {**row, "record": record}
        rows.append({column: _text(values.get(column)) for column in COLUMNS})
    return rows


def _text(value: Any) -> str:
    return "" if value is None else str(value)
