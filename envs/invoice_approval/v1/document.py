"""An invoice as it arrived: the supplier's document, before and apart from what was captured into the books.

InvoiceApproval-v1 keeps two sources for every received invoice: the captured record in the ``invoices`` table
(what data entry typed or OCR read) and the document itself. They can disagree (a capture error) or the record
can still be empty (not yet captured); the policy says the document wins. ``InvoiceDocument`` is the document's
content; ``render_text`` gives what a PDF text layer yields (what the ``get_document`` tool returns) and
``authoring/pdf.py`` renders the same content as a PDF for vision-capable agents.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

DocumentKind = Literal["invoice", "credit_note"]


@dataclass(frozen=True)
class Party:
    """Seller or buyer as printed on the document. ``vat_id`` is None when the document does not show one."""

    name: str
    street: str
    postal_code: str
    city: str
    country: str  # ISO 3166-1 alpha-2, e.g. "DE", "AT"
    vat_id: str | None


@dataclass(frozen=True)
class DocumentLine:
    """One line: ``net_cents`` is what the document prints (normally quantity × unit price; a document may be
    wrong). ``po_line`` is the buyer's PO line the supplier quotes, if any."""

    description: str
    quantity: int
    unit: str  # "Stk", "Std", "kg", "Pauschale", ...
    unit_price_cents: int
    net_cents: int
    po_line: int | None = None


@dataclass(frozen=True)
class InvoiceDocument:
    """What the supplier sent, field by field, as printed. Amounts are integer euro cents. ``vat_rate`` is the
    percent printed (0 with a reverse-charge or intra-EU note); ``notes`` are printed verbatim (for example the
    reverse-charge wording). A credit note names the supplier invoice number it corrects in ``corrects_no``."""

    kind: DocumentKind
    seller: Party
    buyer: Party
    supplier_invoice_no: str
    invoice_date: dt.date
    delivery_date: dt.date | None
    po_number: str | None
    lines: tuple[DocumentLine, ...]
    net_cents: int
    vat_rate: int
    vat_cents: int
    gross_cents: int
    iban: str
    payment_terms: str
    notes: tuple[str, ...] = field(default=())
    corrects_no: str | None = None
