"""An invoice document as the text a PDF text layer yields: what the ``get_document`` tool returns.

The layout is a German B2B invoice read top to bottom: seller with address and USt-IdNr., the buyer
("Rechnungsempfänger"), the title ("Rechnung", or "Rechnungskorrektur" with the corrected invoice's number), the
reference fields, the line table, the totals, the notes verbatim, payment terms and bank details. Both parties'
countries are printed when they differ (as on any cross-border letter), neither on a domestic invoice. Money is
German (``1.234,56 EUR``; "EUR" rather than the euro sign, as ERP printouts in the standard PDF fonts do).

Two rules shape the code:

- Everything printed comes from the dataclass, nothing is computed. A document may print wrong arithmetic on
  purpose (a trap the agent must catch), so the totals are the fields ``net_cents``, ``vat_cents`` and
  ``gross_cents``, never sums of the lines.
- The text and the PDF (``authoring/pdf.py``) share one layout: ``document_rows`` decides every line, including
  where long descriptions wrap, and both renderers only draw those rows. That is what makes the PDF's text layer
  come back as this text (tested with pypdf), without the PDF side knowing anything about invoices.

``render_text`` runs inside episodes, so it is plain Python on the standard library and cheap (a few dozen
microseconds for a typical invoice): no regular expressions, no ``textwrap``, and a text is only split when it
is too long for its line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from ..shared.money import fmt_eur
from .document import DocumentLine, InvoiceDocument, Party

RowKind = Literal["name", "text", "caption", "title", "field", "head", "item", "wrap", "total", "grand", "gap"]
# One printed line: its kind (how the PDF styles it) and its cells. "item" and "head" rows have one cell per table
# column, "field", "total" and "grand" rows a label and a value, "wrap" rows the continued description, the rest
# one cell (a "gap" none).
Row = tuple[RowKind, tuple[str, ...]]

DESCRIPTION_WIDTH = 40  # characters of a description per table line; longer ones continue on "wrap" rows
TEXT_WIDTH = 90  # characters of free text (notes, payment terms) per line
FIELD_WIDTH = 24  # the reference-field labels are padded to this width in the text
TABLE_HEAD = ("Pos.", "Bezeichnung", "Menge", "Einheit", "Einzelpreis", "Betrag")
PO_HEAD = "PO-Pos."
ALIGN = "LLRLRRR"  # per table column: left or right
GAP = "  "  # between table columns in the text

COUNTRY_NAMES = {
    "DE": "Deutschland",
    "AT": "Österreich",
    "NL": "Niederlande",
    "BE": "Belgien",
    "CH": "Schweiz",
    "CZ": "Tschechien",
    "DK": "Dänemark",
    "FR": "Frankreich",
    "IT": "Italien",
    "LU": "Luxemburg",
    "PL": "Polen",
}


def render_text(doc: InvoiceDocument) -> str:
    """The document's text, one printed line per text line, ending without a trailing newline."""
    rows = document_rows(doc)
    widths = _table_widths(rows)
    return "\n".join([_format(row, widths) for row in rows])


def document_rows(doc: InvoiceDocument) -> list[Row]:
    """Every printed line of the document in reading order (the shared layout of text and PDF)."""
    international = doc.seller.country != doc.buyer.country
    rows: list[Row] = []
    _party_rows(rows, doc.seller, international, caption=None)
    rows.append(("gap", ()))
    _party_rows(rows, doc.buyer, international, caption="Rechnungsempfänger:")
    rows.append(("gap", ()))
    _title_rows(rows, doc)
    rows.append(("gap", ()))
    _table_rows(rows, doc.lines)
    rows.append(("gap", ()))
    _total_rows(rows, doc)
    _footer_rows(rows, doc)
    return rows


def format_date(day: dt.date) -> str:
    """German short date: 2026-03-14 -> '14.03.2026'."""
    return f"{day.day:02d}.{day.month:02d}.{day.year}"


def format_quantity(quantity: int) -> str:
    """Whole quantities with German thousands separators: 1200 -> '1.200'."""
    return f"{quantity:,}".replace(",", ".")


def format_iban(iban: str) -> str:
    """The paper form of an IBAN (ISO 13616): groups of four characters. Only spacing changes."""
    compact = "".join(iban.split())
    return " ".join([compact[i : i + 4] for i in range(0, len(compact), 4)])


def wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap that keeps every non-space character in order; a word longer than ``width`` is cut.

    Deliberately not ``textwrap``: this one is exact about what it keeps (no hyphen splitting, no tab expansion),
    and the common case (a one-line text that fits) costs a ``len`` and an ``isprintable``. Line breaks and tabs
    inside the text count as spaces, so every returned line is one printed line.
    """
    if len(text) <= width and text.isprintable():
        return [text]
    lines: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current = f"{current} {word}"
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines or [""]


def _party_rows(rows: list[Row], party: Party, international: bool, caption: str | None) -> None:
    if caption is not None:
        rows.append(("caption", (caption,)))
    rows.append(("name", (party.name,)))
    rows.append(("text", (party.street,)))
    rows.append(("text", (f"{party.postal_code} {party.city}",)))
    if international:
        rows.append(("text", (COUNTRY_NAMES.get(party.country, party.country),)))
    if party.vat_id is not None:
        rows.append(("text", (f"USt-IdNr.: {party.vat_id}",)))


def _title_rows(rows: list[Row], doc: InvoiceDocument) -> None:
    rows.append(("title", ("Rechnungskorrektur" if doc.kind == "credit_note" else "Rechnung",)))
    if doc.corrects_no is not None:
        rows.append(("text", (f"zu Rechnung Nr. {doc.corrects_no}",)))
    rows.append(("gap", ()))
    rows.append(("field", ("Rechnungsnummer:", doc.supplier_invoice_no)))
    rows.append(("field", ("Rechnungsdatum:", format_date(doc.invoice_date))))
    if doc.delivery_date is not None:
        rows.append(("field", ("Leistungs-/Lieferdatum:", format_date(doc.delivery_date))))
    if doc.po_number is not None:
        rows.append(("field", ("Bestellnummer:", doc.po_number)))


def _table_rows(rows: list[Row], lines: Sequence[DocumentLine]) -> None:
    """The head and one item row per line; the PO-Pos. column only when some line quotes a PO line."""
    with_po = any(line.po_line is not None for line in lines)
    rows.append(("head", (*TABLE_HEAD, PO_HEAD) if with_po else TABLE_HEAD))
    for number, line in enumerate(lines, start=1):
        parts = wrap(line.description, DESCRIPTION_WIDTH)
        cells: tuple[str, ...] = (
            str(number),
            parts[0],
            format_quantity(line.quantity),
            line.unit,
            fmt_eur(line.unit_price_cents),
            fmt_eur(line.net_cents),
        )
        if with_po:
            cells = (*cells, "" if line.po_line is None else str(line.po_line))
        rows.append(("item", cells))
        rows.extend(("wrap", (part,)) for part in parts[1:])


def _total_rows(rows: list[Row], doc: InvoiceDocument) -> None:
    rows.append(("total", ("Nettobetrag", fmt_eur(doc.net_cents))))
    rows.append(("total", (f"USt. {doc.vat_rate} %", fmt_eur(doc.vat_cents))))
    rows.append(("grand", ("Bruttobetrag" if doc.vat_rate else "Gesamtbetrag", fmt_eur(doc.gross_cents))))


def _footer_rows(rows: list[Row], doc: InvoiceDocument) -> None:
    if doc.notes:
        rows.append(("gap", ()))
        for note in doc.notes:
            rows.extend(("text", (part,)) for part in wrap(note, TEXT_WIDTH))
    rows.append(("gap", ()))
    rows.extend(("text", (part,)) for part in wrap(f"Zahlungsbedingungen: {doc.payment_terms}", TEXT_WIDTH))
    rows.append(("text", (f"Bankverbindung: IBAN {format_iban(doc.iban)}",)))


def _table_widths(rows: Sequence[Row]) -> list[int]:
    """Text column widths: the widest cell of each column, counting continued descriptions and the totals'
    amounts (printed in the Betrag column)."""
    widths = [0] * 7
    for kind, cells in rows:
        if kind == "item" or kind == "head":
            for index, cell in enumerate(cells):
                widths[index] = max(widths[index], len(cell))
        elif kind == "wrap":
            widths[1] = max(widths[1], len(cells[0]))
        elif kind == "total" or kind == "grand":
            widths[5] = max(widths[5], len(cells[1]))
    return widths


def _format(row: Row, widths: Sequence[int]) -> str:
    kind, cells = row
    if kind == "item" or kind == "head":
        padded = [cell.ljust(widths[i]) if ALIGN[i] == "L" else cell.rjust(widths[i]) for i, cell in enumerate(cells)]
        return GAP.join(padded).rstrip()
    if kind == "wrap":
        return " " * (widths[0] + len(GAP)) + cells[0]
    if kind == "total" or kind == "grand":
        before_amount = sum(widths[:5]) + 4 * len(GAP)
        return cells[0].rjust(before_amount) + GAP + cells[1].rjust(widths[5])
    if kind == "field":
        return f"{cells[0].ljust(FIELD_WIDTH)}{cells[1]}"
    return cells[0] if cells else ""
