"""An invoice document as a real PDF (fpdf2), for the assets that vision-capable agents read.

The PDF draws exactly the rows of ``document_text.document_rows``, the layout ``render_text`` prints, with fonts,
column positions and rules instead of padding. Each row sits on its own baseline and each table cell is a
separate text object on exactly that baseline, so a text extractor gives back one line per row with the cells in
order. The tests hold it to the strictest check that is meaningful: pypdf's ``extract_text()`` of all pages,
with every line whitespace-normalised (runs of spaces collapsed, ends stripped) and blank lines dropped,
*equals* ``render_text(doc)`` normalised the same way. Only whitespace may differ, because a text layer has no column
padding and no blank lines, just positions. Consequences of that contract:

- nothing is printed that the text does not have: no repeated table head, no "Seite 1 von 2" on later pages
  (a long table simply continues on the next page);
- long descriptions wrap where ``document_rows`` wrapped them (by characters), never by font metrics; a piece
  still too wide for its column (or an unusually long amount or unit) is set in smaller type to fit, which keeps
  the cells apart so the extractor keeps a space between them.

Determinism, byte for byte across runs and processes: the creation date is the invoice date (midnight UTC), the
producer and creator are fixed strings, the file ID is fpdf2's hash of the content (no randomness), and the
content streams are left uncompressed so the bytes do not depend on the machine's zlib either. The text uses
the 14 standard PDF fonts (nothing embedded) in Windows-1252, which covers German (ä ö ü ß, §, €); a character
outside it raises fpdf2's ``FPDFUnicodeEncodingException``. fpdf2 is imported when a PDF is rendered, not when
this module is imported, so authoring code can import it without the ``pdf`` extra until it renders.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..document import InvoiceDocument
from ..document_text import ALIGN, TABLE_HEAD, Row, RowKind, document_rows

if TYPE_CHECKING:
    from fpdf import FPDF

PAGE_HEIGHT = 841.89  # A4 in points
LEFT, RIGHT, TOP, BOTTOM = 50.0, 45.0, 50.0, 55.0
WIDTH = 595.28 - LEFT - RIGHT
FIELD_LABEL_WIDTH = 115.0
FONT = "Helvetica"
# Per row kind: font style, font size, row height (points). Rows are spaced more than a line of their type, so an
# extractor never takes two rows for one line.
STYLES: dict[RowKind, tuple[str, float, float]] = {
    "name": ("B", 11.0, 15.0),
    "text": ("", 9.0, 12.0),
    "caption": ("B", 8.0, 12.0),
    "title": ("B", 16.0, 22.0),
    "field": ("", 9.0, 12.5),
    "head": ("B", 8.5, 15.0),
    "item": ("", 9.0, 12.5),
    "wrap": ("", 9.0, 12.0),
    "total": ("", 9.0, 13.0),
    "grand": ("B", 10.0, 16.0),
    "gap": ("", 9.0, 8.0),
}
# Table columns besides the description (which takes the rest): Pos., Menge, Einheit, Einzelpreis, Betrag, PO-Pos.
FIXED_COLUMNS = {"Pos.": 28.0, "Menge": 40.0, "Einheit": 44.0, "Einzelpreis": 72.0, "Betrag": 82.0, "PO-Pos.": 38.0}
Column = tuple[float, float]  # x, width


def render_pdf(doc: InvoiceDocument) -> bytes:
    """The document as PDF bytes; the same document gives the same bytes."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    _set_metadata(pdf, doc)
    pdf.set_auto_page_break(False)  # page breaks are placed row by row in _draw_row
    pdf.add_page()
    rows = document_rows(doc)
    columns = _columns(next(cells for kind, cells in rows if kind == "head"))
    y = TOP
    for row in rows:
        y = _draw_row(pdf, row, y, columns)
    return bytes(pdf.output())


def _set_metadata(pdf: FPDF, doc: InvoiceDocument) -> None:
    title = "Rechnungskorrektur" if doc.kind == "credit_note" else "Rechnung"
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_compression(False)
    pdf.set_title(f"{title} {doc.supplier_invoice_no}")
    pdf.set_author(doc.seller.name)
    pdf.set_creator("officegym InvoiceApproval-v1")
    pdf.set_producer("officegym")
    pdf.set_lang("de-DE")
    pdf.set_creation_date(dt.datetime.combine(doc.invoice_date, dt.time(0, 0), tzinfo=dt.UTC))


def _columns(head: Sequence[str]) -> list[Column]:
    """x and width of each table column; the description column gets what the others leave."""
    fixed = [FIXED_COLUMNS[name] for name in head if name != TABLE_HEAD[1]]
    widths = [*fixed[:1], WIDTH - sum(fixed), *fixed[1:]]
    columns: list[Column] = []
    x = LEFT
    for width in widths:
        columns.append((x, width))
        x += width
    return columns


def _draw_row(pdf: FPDF, row: Row, y: float, columns: Sequence[Column]) -> float:
    """Draw one row at ``y`` (or at the top of a new page) and return the y of the next row."""
    kind, cells = row
    style, size, height = STYLES[kind]
    if kind == "gap":
        return y if y == TOP else y + height
    if y + height > PAGE_HEIGHT - BOTTOM:
        pdf.add_page()
        y = TOP
    pdf.set_font(FONT, style, size)
    baseline = y + height / 2 + 0.3 * size  # one baseline for every cell of the row
    if kind in ("item", "head"):
        for (x, width), cell, align in zip(columns, cells, ALIGN, strict=False):
            _cell(pdf, x, width, baseline, cell, align)
        if kind == "head":
            _rule(pdf, LEFT, LEFT + WIDTH, y + height)
    elif kind == "wrap":
        x, width = columns[1]
        _cell(pdf, x, width, baseline, cells[0], "L")
    elif kind in ("total", "grand"):
        _total(pdf, cells, y, baseline, columns, kind == "grand")
    elif kind == "field":
        _cell(pdf, LEFT, FIELD_LABEL_WIDTH, baseline, cells[0], "L")
        _cell(pdf, LEFT + FIELD_LABEL_WIDTH, WIDTH - FIELD_LABEL_WIDTH, baseline, cells[1], "L")
    else:
        _cell(pdf, LEFT, WIDTH, baseline, cells[0], "L")
    return y + height


def _total(pdf: FPDF, cells: Sequence[str], y: float, baseline: float, columns: Sequence[Column], grand: bool) -> None:
    """Label right-aligned over the Einheit and Einzelpreis columns, amount in the Betrag column."""
    unit_x = columns[3][0]
    amount_x, amount_width = columns[5]
    if grand:
        _rule(pdf, unit_x, amount_x + amount_width, y + 1)
    _cell(pdf, unit_x, amount_x - unit_x, baseline, cells[0], "R")
    _cell(pdf, amount_x, amount_width, baseline, cells[1], "R")


def _cell(pdf: FPDF, x: float, width: float, baseline: float, text: str, align: str) -> None:
    """One text object on the row's baseline, inside the column's margins; smaller type if it would not fit.

    Shrinking the type (rather than compressing it with ``Tz``) keeps the gap to the next cell where a text
    extractor measures it: pypdf ignores horizontal scaling when it decides whether two cells need a space.
    """
    if not text:
        return
    room = width - 2 * pdf.c_margin
    natural = pdf.get_string_width(text)
    size = pdf.font_size_pt
    if natural > room:
        pdf.set_font_size(math.floor(100 * size * room / natural) / 100)
    left = x + pdf.c_margin if align == "L" else x + width - pdf.c_margin - pdf.get_string_width(text)
    pdf.text(left, baseline, text)
    pdf.set_font_size(size)


def _rule(pdf: FPDF, x1: float, x2: float, y: float) -> None:
    pdf.set_line_width(0.5)
    pdf.line(x1, y, x2, y)
