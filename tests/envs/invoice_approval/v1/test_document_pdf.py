"""Invoice documents as real PDFs: byte-identical across runs and processes, and their text layer is the text.

The text-layer check is exact equality after whitespace normalisation (``normalised``: runs of spaces collapsed,
blank lines dropped), not merely "every line appears in order": the PDF draws the very rows ``render_text``
prints, so the only thing a text extractor cannot give back is the padding between columns and the blank lines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
import os
import subprocess
import sys

import pytest

from officegym.envs.invoice_approval.v1.document import DocumentLine, InvoiceDocument
from officegym.envs.invoice_approval.v1.document_json import document_to_json
from officegym.envs.invoice_approval.v1.document_text import DESCRIPTION_WIDTH, render_text, wrap

from .test_document_text import DOMESTIC, DUTCH_GOODS, EXAMPLES, normalised

pytest.importorskip("fpdf", reason="rendering PDFs needs fpdf2: pip install 'officegym[pdf]' (or the dev extra)")
pypdf = pytest.importorskip("pypdf", reason="reading PDFs back needs pypdf (the dev extra)")

from officegym.envs.invoice_approval.v1.authoring.pdf import render_pdf  # noqa: E402


def _pages(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def _text_layer(pdf: bytes) -> str:
    return "\n".join(_pages(pdf))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_text_layer_is_the_documents_text(name: str) -> None:
    doc = EXAMPLES[name]
    pdf = render_pdf(doc)
    assert pdf.startswith(b"%PDF-1.") and pdf.rstrip().endswith(b"%%EOF")
    assert normalised(_text_layer(pdf)) == normalised(render_text(doc))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_rendering_twice_gives_the_same_bytes(name: str) -> None:
    assert render_pdf(EXAMPLES[name]) == render_pdf(EXAMPLES[name])


def test_another_process_renders_the_same_bytes() -> None:
    """No clock, no random ID, no dict-order dependence: a fresh interpreter agrees byte for byte."""
    code = (
        "import hashlib, sys\n"
        "from officegym.envs.invoice_approval.v1.authoring.pdf import render_pdf\n"
        "from officegym.envs.invoice_approval.v1.document_json import document_from_json\n"
        "for text in sys.stdin.read().splitlines():\n"
        "    print(hashlib.sha256(render_pdf(document_from_json(text))).hexdigest())\n"
    )
    docs = [EXAMPLES[name] for name in sorted(EXAMPLES)]
    stdin = "\n".join(document_to_json(doc) for doc in docs)
    env = {**os.environ, "PYTHONHASHSEED": "12345", "TZ": "Pacific/Auckland"}
    result = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, check=True, env=env
    )
    assert result.stdout.split() == [hashlib.sha256(render_pdf(doc)).hexdigest() for doc in docs]


def test_metadata_is_fixed_and_dated_on_the_invoice_date() -> None:
    reader = pypdf.PdfReader(io.BytesIO(render_pdf(DOMESTIC)))
    meta = reader.metadata
    assert meta is not None
    assert meta.producer == "officegym" and meta.creator == "officegym InvoiceApproval-v1"
    assert meta.title == "Rechnung RE-2026-0412" and meta.author == "Nordlicht Elektrotechnik GmbH"
    assert meta.creation_date == dt.datetime(2026, 3, 14, tzinfo=dt.UTC)
    assert render_pdf(EXAMPLES["credit_note"]) != render_pdf(DOMESTIC)


def test_umlauts_and_the_euro_amounts_survive() -> None:
    text = _text_layer(render_pdf(DUTCH_GOODS))
    for word in ("Leopoldstraße 100", "80802 München", "Übersetzung", "gemäß § 4 Nr. 1b"):
        assert word in text
    assert "Gesamtbetrag 6.974,00 EUR" in normalised(text)
    assert "Dubbel – Taschenbuch" in _text_layer(render_pdf(EXAMPLES["books"]))  # an en dash: Windows-1252


def test_a_very_long_description_wraps_without_losing_text() -> None:
    description = " ".join(
        ["Sonderanfertigung Schaltschrank nach Zeichnung 4711-B, Rev. C, inkl. Verdrahtung und Prüfprotokoll"] * 5
        + ["Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetzkonform, WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW"]
    )
    doc = dataclasses.replace(
        DOMESTIC,
        lines=(
            DocumentLine(description, 1_000_000, "Pauschale", 123_456_789_01, 123_456_789_012_345, po_line=99_999),
            *DOMESTIC.lines,
        ),
    )
    lines = normalised(_text_layer(render_pdf(doc)))
    assert lines == normalised(render_text(doc))
    tail = " 1.000.000 Pauschale 123.456.789,01 EUR 1.234.567.890.123,45 EUR 99999"  # shrunk to fit, still apart
    first = next(i for i, line in enumerate(lines) if line.startswith("1 Sonderanfertigung"))
    last = next(i for i, line in enumerate(lines) if line.startswith("2 Hydraulikzylinder"))
    assert lines[first].endswith(tail)
    column = [lines[first][2 : -len(tail)], *lines[first + 1 : last]]
    assert len(column) == len(wrap(description, DESCRIPTION_WIDTH)) > 10
    assert "".join("".join(column).split()) == "".join(description.split())


def test_sixty_lines_spill_onto_a_second_page_and_all_come_back() -> None:
    lines = tuple(
        DocumentLine(f"Normteil DIN 912 M{6 + n % 10}x{20 + n} verzinkt", n + 1, "Stk", 12 * n + 5, 12 * n + 5, n + 1)
        for n in range(60)
    )
    doc: InvoiceDocument = dataclasses.replace(DOMESTIC, lines=lines, notes=("Lieferung frei Haus",))
    pages = _pages(render_pdf(doc))
    assert len(pages) == 2
    assert normalised("\n".join(pages)) == normalised(render_text(doc))
    assert "Bruttobetrag 2.122,96 EUR" in normalised(pages[1])  # the printed field, not the 60 lines' sum
    assert "Pos. Bezeichnung" not in pages[1]  # the table continues without a repeated head
    assert normalised(pages[1])[0].startswith(tuple(f"{n} Normteil" for n in range(30, 61)))
