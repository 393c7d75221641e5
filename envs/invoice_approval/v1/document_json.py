"""``InvoiceDocument`` as canonical JSON, for the SQLite ``documents`` column and the asset files.

Canonical means one document has exactly one text: keys sorted, no insignificant whitespace, dates as ISO
``YYYY-MM-DD``, tuples as lists, non-ASCII kept as is (so ``"Müller"`` stays readable in a dump). Fingerprints
of the assets hash that text, so it must not depend on dict order or on the machine. Reading is strict: a
missing or unknown key, or an amount that is not an integer, raises ``ValueError`` instead of becoming a document
that prints something else than what was stored.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, fields
from typing import Any

from .document import DocumentLine, InvoiceDocument, Party

KINDS = ("invoice", "credit_note")


def document_to_dict(doc: InvoiceDocument) -> dict[str, Any]:
    """Plain JSON-ready values (for embedding a document in a larger JSON record)."""
    data = asdict(doc)
    data["invoice_date"] = doc.invoice_date.isoformat()
    data["delivery_date"] = None if doc.delivery_date is None else doc.delivery_date.isoformat()
    data["lines"] = [asdict(line) for line in doc.lines]
    data["notes"] = list(doc.notes)
    return data


def document_to_json(doc: InvoiceDocument) -> str:
    """The canonical text: equal documents give equal strings, on every machine."""
    return json.dumps(document_to_dict(doc), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def document_from_json(text: str) -> InvoiceDocument:
    """Inverse of ``document_to_json``: ``document_from_json(document_to_json(d)) == d`` for every document."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("an invoice document must be a JSON object")
    return document_from_dict(data)


def document_from_dict(data: dict[str, Any]) -> InvoiceDocument:
    """Inverse of ``document_to_dict``, checking every field's type."""
    _check_keys(data, InvoiceDocument)
    kind = data["kind"]
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    return InvoiceDocument(
        kind=kind,
        seller=_party(data["seller"]),
        buyer=_party(data["buyer"]),
        supplier_invoice_no=_str(data, "supplier_invoice_no"),
        invoice_date=_date(data["invoice_date"]),
        delivery_date=None if data["delivery_date"] is None else _date(data["delivery_date"]),
        po_number=_opt_str(data, "po_number"),
        lines=tuple(_line(item) for item in _list(data, "lines")),
        net_cents=_int(data, "net_cents"),
        vat_rate=_int(data, "vat_rate"),
        vat_cents=_int(data, "vat_cents"),
        gross_cents=_int(data, "gross_cents"),
        iban=_str(data, "iban"),
        payment_terms=_str(data, "payment_terms"),
        notes=tuple(_as_str(note, "notes") for note in _list(data, "notes")),
        corrects_no=_opt_str(data, "corrects_no"),
    )


def _party(data: Any) -> Party:
    if not isinstance(data, dict):
        raise ValueError("a party must be a JSON object")
    _check_keys(data, Party)
    return Party(
        name=_str(data, "name"),
        street=_str(data, "street"),
        postal_code=_str(data, "postal_code"),
        city=_str(data, "city"),
        country=_str(data, "country"),
        vat_id=_opt_str(data, "vat_id"),
    )


def _line(data: Any) -> DocumentLine:
    if not isinstance(data, dict):
        raise ValueError("a document line must be a JSON object")
    _check_keys(data, DocumentLine)
    po_line = data["po_line"]
    return DocumentLine(
        description=_str(data, "description"),
        quantity=_int(data, "quantity"),
        unit=_str(data, "unit"),
        unit_price_cents=_int(data, "unit_price_cents"),
        net_cents=_int(data, "net_cents"),
        po_line=None if po_line is None else _int(data, "po_line"),
    )


def _check_keys(data: dict[str, Any], cls: type) -> None:
    """All keys present (the writer always writes every field, defaults included) and none unknown."""
    expected = {f.name for f in fields(cls)}
    if set(data) != expected:
        missing, unknown = sorted(expected - set(data)), sorted(set(data) - expected)
        raise ValueError(f"{cls.__name__}: missing keys {missing}, unknown keys {unknown}")


def _int(data: dict[str, Any], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, not {value!r}")
    return value


def _str(data: dict[str, Any], key: str) -> str:
    return _as_str(data[key], key)


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data[key]
    return None if value is None else _as_str(value, key)


def _as_str(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string, not {value!r}")
    return value


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise ValueError(f"{key} must be a list, not {value!r}")
    return value


def _date(value: Any) -> dt.date:
    if not isinstance(value, str):
        raise ValueError(f"a date must be an ISO string, not {value!r}")
    return dt.date.fromisoformat(value)
