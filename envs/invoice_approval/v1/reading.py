"""Reading a document's text (what ``get_document`` returns) back into fields: how the reference solver, like an
agent, learns what a document prints. Written against ``document_text.render_text``; a test parses every
document of the shipped company and compares with its JSON, so a layout change cannot go unnoticed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOTAL = re.compile(r"^(Nettobetrag|USt\. (\d+) %|Bruttobetrag|Gesamtbetrag)\s+(-?[\d.]+,\d\d) EUR$")
_ITEM = re.compile(
    r"^(\d+)\s{2,}.*?\s{2,}([\d.]+)\s{2,}\S+\s{2,}(-?[\d.]+,\d\d) EUR\s{2,}(-?[\d.]+,\d\d) EUR(?:\s{2,}(\d+))?$"
)


@dataclass(frozen=True)
class ReadLine:
    quantity: int
    unit_price_cents: int
    net_cents: int
    po_line: int | None


@dataclass
class ReadDocument:
    kind: str = "invoice"
    number: str = ""
    invoice_date: str = ""
    po_number: str | None = None
    corrects_no: str | None = None
    lines: tuple[ReadLine, ...] = ()
    net_cents: int = 0
    vat_rate: int = 0
    vat_cents: int = 0
    gross_cents: int = 0
    seller_vat_id: str | None = None
    buyer_vat_id: str | None = None
    notes: str = ""

    def capture_values(self) -> dict[str, object]:
        """The record fields as ``capture_invoice`` takes them (and ``get_invoice`` shows them)."""
        return {
            "supplier_invoice_no": self.number,
            "invoice_date": self.invoice_date,
            "po_number": self.po_number,
            "corrects_no": self.corrects_no,
            "net_cents": self.net_cents,
            "vat_rate": self.vat_rate,
            "vat_cents": self.vat_cents,
            "gross_cents": self.gross_cents,
        }


def cents(text: str) -> int:
    """'1.234,56' -> 123456."""
    return int(text.replace(".", "").replace(",", ""))


def _iso(german: str) -> str:
    day, month, year = german.split(".")
    return f"{year}-{month}-{day}"


def read_document(text: str) -> ReadDocument:
    doc = ReadDocument()
    lines = text.split("\n")
    in_buyer, after_total, notes, items = False, False, [], []
    for raw in lines:
        line = raw.strip()
        if line == "Rechnungsempfänger:":
            in_buyer = True
        elif line in ("Rechnung", "Rechnungskorrektur"):
            doc.kind = "credit_note" if line == "Rechnungskorrektur" else "invoice"
        elif line.startswith("zu Rechnung Nr. "):
            doc.corrects_no = line[len("zu Rechnung Nr. ") :]
        elif line.startswith("USt-IdNr.: "):
            if in_buyer:
                doc.buyer_vat_id = line[len("USt-IdNr.: ") :]
            else:
                doc.seller_vat_id = line[len("USt-IdNr.: ") :]
        elif raw.startswith("Rechnungsnummer:"):
            doc.number = raw[len("Rechnungsnummer:") :].strip()
        elif raw.startswith("Rechnungsdatum:"):
            doc.invoice_date = _iso(raw[len("Rechnungsdatum:") :].strip())
        elif raw.startswith("Bestellnummer:"):
            doc.po_number = raw[len("Bestellnummer:") :].strip()
        elif line.startswith("Zahlungsbedingungen:"):
            after_total = False
        elif after_total and line:
            notes.append(line)
        elif (total := _TOTAL.match(line)) is not None:
            _total(doc, total)
            after_total = total.group(1) in ("Bruttobetrag", "Gesamtbetrag")
        elif (item := _ITEM.match(raw)) is not None:
            items.append(
                ReadLine(
                    int(item.group(2).replace(".", "")), cents(item.group(3)), cents(item.group(4)), _opt(item.group(5))
                )
            )
    doc.lines, doc.notes = tuple(items), " ".join(notes)
    return doc


def _opt(value: str | None) -> int | None:
    return None if value is None else int(value)


def _total(doc: ReadDocument, match: re.Match[str]) -> None:
    label, amount = match.group(1), cents(match.group(3))
    if label == "Nettobetrag":
        doc.net_cents = amount
    elif label.startswith("USt."):
        doc.vat_rate, doc.vat_cents = int(match.group(2)), amount
    else:
        doc.gross_cents = amount
