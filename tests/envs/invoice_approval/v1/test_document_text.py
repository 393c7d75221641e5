"""Invoice documents as text (what ``get_document`` returns) and as canonical JSON.

The six example documents here are the ones the PDF tests render too: a domestic invoice at 19 %, books at 7 %,
an Austrian reverse-charge service, an intra-EU goods delivery from the Netherlands, a credit note, and an invoice
whose printed arithmetic is wrong (the text must print the fields, never recompute them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from officegym.envs.invoice_approval.v1.document import DocumentLine, InvoiceDocument, Party
from officegym.envs.invoice_approval.v1.document_json import (
    document_from_dict,
    document_from_json,
    document_to_dict,
    document_to_json,
)
from officegym.envs.invoice_approval.v1.document_text import (
    DESCRIPTION_WIDTH,
    format_date,
    format_iban,
    format_quantity,
    render_text,
    wrap,
)

ALPENWERK = Party("Alpenwerk Maschinenbau GmbH", "Leopoldstraße 100", "80802", "München", "DE", "DE811234567")
NORDLICHT = Party("Nordlicht Elektrotechnik GmbH", "Hafenstraße 7", "20457", "Hamburg", "DE", "DE123456789")
LEHMANN = Party("Fachbuchhandlung Lehmann & Söhne KG", "Schellingstraße 3", "80799", "München", "DE", "DE298765432")
TIROL = Party("Tiroler Steuerungstechnik GmbH", "Museumstraße 21", "6020", "Innsbruck", "AT", "ATU12345678")
VAN_DER_BERG = Party(
    "Van der Berg Aandrijftechniek B.V.", "Industrieweg 14", "5651 GH", "Eindhoven", "NL", "NL812345678B01"
)
REVERSE_CHARGE = "Steuerschuldnerschaft des Leistungsempfängers"
INTRA_EU = (
    "Steuerfreie innergemeinschaftliche Lieferung gemäß § 4 Nr. 1b i. V. m. § 6a UStG / "
    "Intracommunautaire levering, artikel 138 Richtlijn 2006/112/EG"
)


def _document(**changes: object) -> InvoiceDocument:
    """The domestic 19 % invoice; the other examples change some of its fields."""
    base = InvoiceDocument(
        kind="invoice",
        seller=NORDLICHT,
        buyer=ALPENWERK,
        supplier_invoice_no="RE-2026-0412",
        invoice_date=dt.date(2026, 3, 14),
        delivery_date=dt.date(2026, 3, 10),
        po_number="PO-2026-0031",
        lines=(
            DocumentLine("Hydraulikzylinder HZ-50", 4, "Stk", 31250, 125000, po_line=1),
            DocumentLine("Montage vor Ort", 6, "Std", 8900, 53400, po_line=2),
        ),
        net_cents=178400,
        vat_rate=19,
        vat_cents=33896,
        gross_cents=212296,
        iban="DE89370400440532013000",
        payment_terms="zahlbar innerhalb 30 Tagen ohne Abzug",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


DOMESTIC = _document()
BOOKS = _document(
    seller=LEHMANN,
    buyer=dataclasses.replace(ALPENWERK, vat_id=None),
    supplier_invoice_no="2026/1187",
    delivery_date=None,
    po_number=None,
    lines=(
        DocumentLine("Roloff/Matek Maschinenelemente, 26. Auflage", 3, "Stk", 6499, 19497),
        DocumentLine("Dubbel – Taschenbuch für Maschinenbau", 2, "Stk", 11900, 23800),
    ),
    net_cents=43297,
    vat_rate=7,
    vat_cents=3031,
    gross_cents=46328,
    iban="DE02120300000000202051",
    payment_terms="zahlbar sofort nach Erhalt",
)
AUSTRIAN_SERVICE = _document(
    seller=TIROL,
    supplier_invoice_no="AR-26-00093",
    lines=(
        DocumentLine("Inbetriebnahme Steuerung SPS, Vor-Ort-Einsatz", 16, "Std", 9500, 152000),
        DocumentLine("Reisekosten", 1, "Pauschale", 18000, 18000),
    ),
    net_cents=170000,
    vat_rate=0,
    vat_cents=0,
    gross_cents=170000,
    iban="AT611904300234573201",
    payment_terms="zahlbar innerhalb 14 Tagen netto",
    notes=(REVERSE_CHARGE,),
)
DUTCH_GOODS = _document(
    seller=VAN_DER_BERG,
    supplier_invoice_no="F2026-00417",
    po_number="PO-2026-0107",
    lines=(
        DocumentLine("Servomotor SM-80, 400 V", 10, "Stk", 48500, 485000, po_line=1),
        DocumentLine("Planetengetriebe PG-3, Übersetzung 1:10", 10, "Stk", 21240, 212400, po_line=2),
    ),
    net_cents=697400,
    vat_rate=0,
    vat_cents=0,
    gross_cents=697400,
    iban="NL91ABNA0417164300",
    payment_terms="betaling binnen 30 dagen / zahlbar innerhalb 30 Tagen",
    notes=(INTRA_EU,),
)
CREDIT_NOTE = _document(
    kind="credit_note",
    supplier_invoice_no="RK-2026-0031",
    invoice_date=dt.date(2026, 3, 28),
    lines=(DocumentLine("Gutschrift Hydraulikzylinder HZ-50 (Rücksendung)", 1, "Stk", -31250, -31250, po_line=1),),
    net_cents=-31250,
    vat_rate=19,
    vat_cents=-5938,
    gross_cents=-37188,
    corrects_no="RE-2026-0412",
)
# Line 2 prints 80,00 EUR for 5 x 12,00 EUR, and the gross is 10,00 EUR more than net + VAT.
WRONG_ARITHMETIC = _document(
    supplier_invoice_no="RE-2026-0499",
    lines=(
        DocumentLine("Kabelbinder 300 mm, 100er Pack", 10, "Pck", 4500, 45000, po_line=3),
        DocumentLine("Schrumpfschlauch-Sortiment", 5, "Stk", 1200, 8000, po_line=4),
    ),
    net_cents=53000,
    vat_cents=10070,
    gross_cents=64070,
)
EXAMPLES = {
    "domestic": DOMESTIC,
    "books": BOOKS,
    "austrian_service": AUSTRIAN_SERVICE,
    "dutch_goods": DUTCH_GOODS,
    "credit_note": CREDIT_NOTE,
    "wrong_arithmetic": WRONG_ARITHMETIC,
}

DOMESTIC_TEXT = """\
Nordlicht Elektrotechnik GmbH
Hafenstraße 7
20457 Hamburg
USt-IdNr.: DE123456789

Rechnungsempfänger:
Alpenwerk Maschinenbau GmbH
Leopoldstraße 100
80802 München
USt-IdNr.: DE811234567

Rechnung

Rechnungsnummer:        RE-2026-0412
Rechnungsdatum:         14.03.2026
Leistungs-/Lieferdatum: 10.03.2026
Bestellnummer:          PO-2026-0031

Pos.  Bezeichnung              Menge  Einheit  Einzelpreis        Betrag  PO-Pos.
1     Hydraulikzylinder HZ-50      4  Stk       312,50 EUR  1.250,00 EUR        1
2     Montage vor Ort              6  Std        89,00 EUR    534,00 EUR        2

                                               Nettobetrag  1.784,00 EUR
                                                 USt. 19 %    338,96 EUR
                                              Bruttobetrag  2.122,96 EUR

Zahlungsbedingungen: zahlbar innerhalb 30 Tagen ohne Abzug
Bankverbindung: IBAN DE89 3704 0044 0532 0130 00"""


def normalised(text: str) -> list[str]:
    """Lines with whitespace runs collapsed, blank lines dropped: what survives any text extraction."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def test_domestic_invoice_reads_like_a_german_invoice() -> None:
    assert render_text(DOMESTIC) == DOMESTIC_TEXT


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_renders_deterministically_and_without_trailing_space(name: str) -> None:
    doc = EXAMPLES[name]
    text = render_text(doc)
    assert text == render_text(document_from_json(document_to_json(doc)))
    assert all(line == line.rstrip() for line in text.splitlines())
    assert normalised(text)[0] == doc.seller.name
    assert f"Rechnungsnummer: {doc.supplier_invoice_no}" in normalised(text)


def test_books_invoice_prints_seven_percent_and_leaves_out_what_it_lacks() -> None:
    lines = normalised(render_text(BOOKS))
    assert "USt. 7 % 30,31 EUR" in lines
    assert "Bruttobetrag 463,28 EUR" in lines
    row = lines.index("1 Roloff/Matek Maschinenelemente, 26. 3 Stk 64,99 EUR 194,97 EUR")  # 43 characters wrap
    assert lines[row + 1 : row + 3] == [
        "Auflage",
        "2 Dubbel – Taschenbuch für Maschinenbau 2 Stk 119,00 EUR 238,00 EUR",
    ]
    assert "Pos. Bezeichnung Menge Einheit Einzelpreis Betrag" in lines  # no PO-Pos. column
    text = render_text(BOOKS)
    assert "Bestellnummer" not in text and "Leistungs-/Lieferdatum" not in text
    assert text.count("USt-IdNr.") == 1  # the seller's; the buyer's is not printed


def test_austrian_reverse_charge_shows_both_vat_ids_the_note_and_no_vat() -> None:
    lines = normalised(render_text(AUSTRIAN_SERVICE))
    assert lines[:6] == [
        "Tiroler Steuerungstechnik GmbH",
        "Museumstraße 21",
        "6020 Innsbruck",
        "Österreich",
        "USt-IdNr.: ATU12345678",
        "Rechnungsempfänger:",
    ]
    assert lines[9:11] == ["Deutschland", "USt-IdNr.: DE811234567"]
    assert REVERSE_CHARGE in lines
    assert "USt. 0 % 0,00 EUR" in lines and "Gesamtbetrag 1.700,00 EUR" in lines
    assert "2 Reisekosten 1 Pauschale 180,00 EUR 180,00 EUR" in lines


def test_dutch_goods_note_is_printed_verbatim_across_lines() -> None:
    text = render_text(DUTCH_GOODS)
    assert "Niederlande" in normalised(text) and "Bankverbindung: IBAN NL91 ABNA 0417 1643 00" in normalised(text)
    note_lines = [line for line in text.splitlines() if "Lieferung" in line or "Richtlijn" in line]
    assert len(note_lines) == 2 and all(len(line) <= 90 for line in note_lines)
    assert " ".join(note_lines) == INTRA_EU
    assert "2 Planetengetriebe PG-3, Übersetzung 1:10 10 Stk 212,40 EUR 2.124,00 EUR 2" in normalised(text)


def test_credit_note_names_the_corrected_invoice_and_prints_negative_amounts() -> None:
    lines = normalised(render_text(CREDIT_NOTE))
    title = lines.index("Rechnungskorrektur")
    assert lines[title + 1] == "zu Rechnung Nr. RE-2026-0412"
    assert "Rechnung" not in lines
    assert "Rechnungsnummer: RK-2026-0031" in lines and "Rechnungsdatum: 28.03.2026" in lines
    assert "Nettobetrag -312,50 EUR" in lines
    assert "USt. 19 % -59,38 EUR" in lines
    assert "Bruttobetrag -371,88 EUR" in lines


def test_wrong_arithmetic_is_printed_as_it_is_never_recomputed() -> None:
    lines = normalised(render_text(WRONG_ARITHMETIC))
    assert "2 Schrumpfschlauch-Sortiment 5 Stk 12,00 EUR 80,00 EUR 4" in lines  # 5 x 12,00 is not 80,00
    assert "Bruttobetrag 640,70 EUR" in lines  # net + VAT would be 630,70
    assert "630,70" not in render_text(WRONG_ARITHMETIC) and "60,00" not in render_text(WRONG_ARITHMETIC)


def test_a_party_without_vat_id_prints_none_and_domestic_parties_no_country() -> None:
    doc = _document(seller=dataclasses.replace(NORDLICHT, vat_id=None))
    text = render_text(doc)
    assert text.count("USt-IdNr.") == 1 and "Deutschland" not in text


def test_long_descriptions_wrap_in_the_description_column() -> None:
    description = "Sonderanfertigung " * 6 + "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetzkonform"
    doc = _document(lines=(DocumentLine(description, 1, "Stk", 100, 100, po_line=1),))
    pieces = wrap(description, DESCRIPTION_WIDTH)
    assert len(pieces) == 5 and pieces[-1] == "gabenübertragungsgesetzkonform"  # the 70-letter word is cut
    lines = render_text(doc).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("1 "))
    assert lines[first].startswith(f"1     {pieces[0]}  ")
    assert lines[first + 1 : first + 5] == [f"      {piece}" for piece in pieces[1:]]


def test_formatting_helpers() -> None:
    assert format_date(dt.date(2026, 1, 5)) == "05.01.2026"
    assert format_quantity(1200) == "1.200" and format_quantity(-3) == "-3"
    assert format_iban("DE89 3704 0044 0532 0130 00") == format_iban("DE89370400440532013000")
    assert wrap("", 10) == [""] and wrap("kurz", 10) == ["kurz"] and wrap("a\nb", 10) == ["a b"]


@given(st.text(st.sampled_from("abcäöß -\n"), max_size=200), st.integers(min_value=1, max_value=DESCRIPTION_WIDTH))
def test_wrap_keeps_every_character_and_respects_the_width(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert all(len(line) <= width for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_json_round_trip_is_exact_and_canonical(name: str) -> None:
    doc = EXAMPLES[name]
    text = document_to_json(doc)
    assert document_from_json(text) == doc
    assert document_to_json(document_from_json(text)) == text
    assert text == json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert f'"invoice_date":"{doc.invoice_date.isoformat()}"' in text
    assert document_from_dict(json.loads(json.dumps(document_to_dict(doc)))) == doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("iban"), "missing keys"),
        (lambda d: d.update(extra=1), "unknown keys"),
        (lambda d: d.update(net_cents=1784.0), "integer"),
        (lambda d: d.update(vat_rate=True), "integer"),
        (lambda d: d.update(kind="receipt"), "kind"),
        (lambda d: d["lines"][0].update(po_line="1"), "integer"),
        (lambda d: d["seller"].pop("vat_id"), "missing keys"),
    ],
)
def test_json_reading_is_strict(change: object, message: str) -> None:
    data = document_to_dict(DOMESTIC)
    change(data)  # type: ignore[operator]
    with pytest.raises(ValueError, match=message):
        document_from_json(json.dumps(data))


def test_the_runtime_modules_load_no_pdf_library() -> None:
    """``get_document`` runs inside episodes: the text and JSON modules must not pull in fpdf2 or pypdf."""
    code = (
        "import sys\n"
        "import officegym.envs.invoice_approval.v1.document_text\n"
        "import officegym.envs.invoice_approval.v1.document_json\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fpdf', 'pypdf') or 'authoring' in m))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
