"""v2's ``capture_invoice`` writes dates and identifiers only in the forms its policy states (issue 27): every
value v1 stored and should not have is refused with an ``Error:`` that names the field and the form, and the
books are left exactly as they were. v1 is shown storing them first."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from officegym.envs.invoice_approval.v1 import sandbox as v1_sandbox
from officegym.envs.invoice_approval.v1.episode import V1Episode
from officegym.envs.invoice_approval.v1.reading import read_document
from officegym.envs.invoice_approval.v2 import capture_rules
from officegym.envs.invoice_approval.v2.bundle import load_bundle
from officegym.envs.invoice_approval.v2.env import policy_text
from officegym.envs.invoice_approval.v2.sandbox import call, open_episode

IMPOSSIBLE_DATES = ("0001-01-01", "9999-12-31", "2026-W01-1", "2026-02-30", "20260314", "14.03.2026", "2026-3-14")
BAD_PO_NUMBERS = (" ", "   ", "\t", "4500 12345", "450012345", "45001234567", "3500123456", "PO-4500123")
BAD_NUMBERS = ("", " ", "  \t", " RE-1", "RE-1 ", "RE\n1")


@pytest.fixture()
def episode() -> Iterator[V1Episode]:
    bundle = load_bundle()
    made = open_episode(bundle.template, next(iter(bundle.tasks.values())).actor)
    yield made
    made.conn.close()


def received(episode: V1Episode) -> dict[str, Any]:
    """The first received document's record, and the capture that copies what its document prints."""
    (iid,) = episode.conn.execute("SELECT MIN(invoice_id) FROM invoices WHERE status = 'received'").fetchone()
    record: dict[str, Any] = json.loads(call(episode, _get("get_invoice", iid)).observation)
    values = read_document(call(episode, _get("get_document", iid)).observation).capture_values()
    return {"record": record, "args": {"invoice_id": iid, **{k: v for k, v in values.items() if v is not None}}}


def _get(name: str, iid: str) -> dict[str, Any]:
    return {"name": name, "arguments": {"invoice_id": iid}}


def books(episode: V1Episode) -> list[Any]:
    return list(episode.conn.execute("SELECT * FROM invoices ORDER BY invoice_id"))


def refused(episode: V1Episode, **changes: Any) -> str:
    """Capture the first received document with ``changes``: must be an ``Error:`` that changed nothing."""
    before, case = books(episode), received(episode)
    outcome = call(episode, {"name": "capture_invoice", "arguments": {**case["args"], **changes}})
    assert outcome.is_error and outcome.observation.startswith("Error: "), outcome.observation
    assert books(episode) == before
    return str(outcome.observation)


@pytest.mark.parametrize("value", IMPOSSIBLE_DATES)
def test_v1_stores_what_v2_refuses(value: str) -> None:
    """The finding, on v1: these dates, and blank PO numbers, are written into the books."""
    bundle = load_bundle()
    ep = v1_sandbox.open_episode(bundle.template, next(iter(bundle.tasks.values())).actor)
    case = received(ep)
    stored = []
    for change in ({"invoice_date": value}, {"po_number": " "}):
        outcome = v1_sandbox.call(ep, {"name": "capture_invoice", "arguments": {**case["args"], **change}})
        stored.append(not outcome.is_error)
    ep.conn.close()
    week_or_extreme = value in ("0001-01-01", "9999-12-31", "2026-W01-1")
    assert stored == [week_or_extreme, True]


@pytest.mark.parametrize("value", IMPOSSIBLE_DATES)
def test_an_impossible_or_misformatted_date_is_refused(episode: V1Episode, value: str) -> None:
    answer = refused(episode, invoice_date=value)
    assert answer.startswith("Error: invoice_date")
    assert "YYYY-MM-DD" in answer or "outside the plausible window" in answer


def test_the_window_runs_from_366_days_before_the_received_date_to_that_date(episode: V1Episode) -> None:
    case = received(episode)
    arrived = dt.date.fromisoformat(case["record"]["received_date"])
    for days, ok in ((1, False), (0, True), (-366, True), (-367, False)):
        day = (arrived + dt.timedelta(days=days)).isoformat()
        args = {**case["args"], "invoice_date": day}
        outcome = call(episode, {"name": "capture_invoice", "arguments": args})
        assert outcome.is_error is not ok, (days, outcome.observation)
        if not ok:
            assert "outside the plausible window" in outcome.observation and arrived.isoformat() in outcome.observation


@pytest.mark.parametrize("value", BAD_PO_NUMBERS)
def test_a_blank_or_misformatted_po_number_is_refused(episode: V1Episode, value: str) -> None:
    answer = refused(episode, po_number=value)
    assert answer.startswith("Error: po_number must be empty (the document prints none) or 10 digits starting with 45")


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_blank_or_padded_supplier_number_is_refused(episode: V1Episode, value: str) -> None:
    assert refused(episode, supplier_invoice_no=value).startswith("Error: supplier_invoice_no must")


@pytest.mark.parametrize("value", BAD_NUMBERS[1:])
def test_a_blank_or_padded_corrected_number_is_refused(episode: V1Episode, value: str) -> None:
    assert refused(episode, corrects_no=value).startswith("Error: corrects_no must")


def test_what_the_document_prints_is_captured(episode: V1Episode) -> None:
    case = received(episode)
    outcome = call(episode, {"name": "capture_invoice", "arguments": {**case["args"], "po_number": ""}})
    assert outcome.observation == f"Captured {case['args']['invoice_id']}."
    record = json.loads(call(episode, _get("get_invoice", case["args"]["invoice_id"])).observation)
    assert record["po_number"] is None and record["invoice_date"] == case["args"]["invoice_date"]


def test_every_printed_document_of_the_shipped_company_is_inside_the_forms(episode: V1Episode) -> None:
    """So an agent that copies the document is never refused: every received document captures as printed."""
    ids = [row[0] for row in episode.conn.execute("SELECT invoice_id FROM invoices WHERE status = 'received'")]
    for iid in ids:
        values = read_document(call(episode, _get("get_document", iid)).observation).capture_values()
        args = {"invoice_id": iid, **{k: v for k, v in values.items() if v is not None}}
        outcome = call(episode, {"name": "capture_invoice", "arguments": args})
        assert not outcome.is_error, (iid, outcome.observation)


def test_the_policy_states_the_forms_the_tool_checks() -> None:
    text = policy_text()
    assert f"not more than {capture_rules.MAX_AGE_DAYS} days before" in text
    assert "**10 digits starting with 45**" in text and capture_rules.PO_FORM.pattern == r"45\d{8}"
    assert "`YYYY-MM-DD`" in text and "A cursor holds only while its listing is unchanged" in text
