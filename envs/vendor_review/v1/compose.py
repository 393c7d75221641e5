"""Writing a planned deal: the documents around the evidence lines, and the answer key beside them.

The result is a v1 deal record: the shared scenario keys (so the shared runtime and checks read it) plus
``annotations``, each requirement's mode, promise and rumour, which only authoring checks and tests read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..shared.text import fill, long_date, month_year
from .library import SOC2_OPINION, Library
from .plan import DealPlan, ItemPlan, decision_of
from .thread import it_channel, thread_text

DOC_IDS: Final = {
    "requirements_matrix": "requirements-matrix",
    "questionnaire": "security-questionnaire",
    "soc2": "soc2-report",
    "dpa": "vendor-dpa",
    "admin_guide": "admin-guide",
    "architecture": "architecture-note",
    "subprocessors": "subprocessor-list",
    "trust_center": "trust-center",
    "order_form": "order-form",
    "side_letter": "side-letter",
    "it_thread": "it-thread",
}
"""Document IDs by slot, in the order the deal file lists them."""
ALWAYS: Final = ("requirements_matrix", "questionnaire", "soc2", "dpa", "order_form", "it_thread")
AUTHORS: Final = {"requirements_matrix": "buyer", "it_thread": "buyer", "soc2": "auditor"}
KINDS: Final = {"side_letter": "order_form"}
NUMBERED: Final = {"order_form": 3, "side_letter": 1}
"""Slots whose lines are numbered clauses, and the first clause number."""


def values_of(plan: DealPlan) -> dict[str, str]:
    """Every placeholder the frames and the library may use, for this deal."""
    voice, buyer = plan.voice, plan.buyer
    own = {key: value for key, value in voice.items() if key not in ("id", "name")}
    own.update({key: value for key, value in buyer.items() if key not in ("id", "name")})
    values = {**own, "vendor": voice["name"], "buyer": buyer["name"]}
    values["buyer_short"] = buyer["name"].split()[0]
    values["rfp"] = f"RFP {plan.date.year}-{plan.seed % 97 + 1:02d}"
    values["order_no"] = f"{voice['name'][:2].upper()}-{plan.date.year}-{plan.seed % 9000 + 1000}"
    values["channel"] = f"{buyer['id']}-frontline-app"
    values.update({name: long_date(day) for name, day in plan.dates.items()})
    values["old_date"] = month_year(plan.dates["old_date"])
    values["thread_start"] = long_date(plan.date.replace(day=1))
    values["thread_end"] = long_date(plan.date)
    values["soc2_opinion"] = ""
    return values


@dataclass
class Draft:
    """The documents being written: their lines by slot, and the SOC 2 opinion if a piece replaces it."""

    lines: dict[str, list[str]] = field(default_factory=dict)
    opinion: str = ""

    def add(self, slot: str, line: str) -> None:
        self.lines.setdefault(slot, []).append(line)


def _questionnaire_line(plan_item: ItemPlan, library: Library, answer: str, label: str) -> str:
    item = library.item(plan_item.id)
    return " ".join(part for part in (f"{item.code} {item.name}.", label, answer) if part)


def _write_item(draft: Draft, item: ItemPlan, library: Library, values: Mapping[str, str]) -> dict[str, Any]:
    """Put one requirement's evidence into the draft; return its answer-key entry (doc slots and phrases)."""
    slots: list[str] = []
    phrases: list[str] = []
    piece = item.piece
    if piece.questionnaire:
        answer = fill(piece.questionnaire, values)
        padded = " ".join([answer, *(fill(filler, values) for filler in item.fillers)])
        draft.add("questionnaire", _questionnaire_line(item, library, padded, values["answer_label"]))
        slots.append("questionnaire")
        phrases.append(answer)
    if piece.doc is not None and piece.text is not None:
        text = fill(piece.text, values)
        if piece.doc == SOC2_OPINION:
            draft.opinion = text
            slots.append("soc2")
        else:
            draft.add(piece.doc, text)
            slots.append(piece.doc)
        phrases.append(text)
    promise = ""
    if item.promise != "none" and item.due is not None:
        promise = fill(item.promise_text, {**values, "due": long_date(item.due)})
        draft.add("order_form" if item.promise == "signed" else "side_letter", promise)
    return {"slots": slots, "phrases": phrases, "promise": promise}


def _document(slot: str, lines: list[str], library: Library, values: Mapping[str, str]) -> dict[str, str]:
    frames = library.frames
    first = NUMBERED.get(slot)
    body = [f"{first + n}. {line}" for n, line in enumerate(lines)] if first is not None else lines
    if slot == "soc2" and not body:
        body = ["(No test results are reproduced in this excerpt.)"]
    parts = [fill(frames["heads"][slot], values), "\n".join(body)]
    if slot in frames["tails"]:
        parts.append(fill(frames["tails"][slot], values))
    return {
        "id": DOC_IDS[slot],
        "title": fill(frames["titles"][slot], values),
        "kind": KINDS.get(slot, slot),
        "author": AUTHORS.get(slot, "vendor"),
        "text": "\n\n".join(part for part in parts if part),
    }


def _matrix_lines(plan: DealPlan, library: Library) -> list[str]:
    return [f"{item.id} | {item.priority} | {library.item(item.id).pass_bar}" for item in plan.items]


def _finding(item: ItemPlan, entry: Mapping[str, Any], library: Library) -> dict[str, Any]:
    slots, phrases = list(entry["slots"]), list(entry["phrases"])
    if item.mode in ("draft", "decoy") and entry["promise"]:
        slots.append("order_form" if item.promise == "signed" else "side_letter")
        phrases.append(entry["promise"])
    return {
        "id": item.id,
        "doc_ids": list(dict.fromkeys(DOC_IDS[slot] for slot in slots)),
        "evidence": phrases,
        "explanation": library.frames["explanations"][item.mode],
    }


def compose_deal(plan: DealPlan, library: Library, deal_id: str) -> dict[str, Any]:
    """The deal record of ``plan``: documents, matrix, answer key, IT channel, decision and annotations."""
    values = values_of(plan)
    draft = Draft()
    entries = {item.id: _write_item(draft, item, library, values) for item in plan.items}
    values["soc2_opinion"] = draft.opinion or fill(library.frames["default_soc2_opinion"], values)
    draft.lines["requirements_matrix"] = _matrix_lines(plan, library)
    slots = [slot for slot in DOC_IDS if slot in ALWAYS or draft.lines.get(slot)]
    documents = []
    for slot in slots:
        if slot == "it_thread":
            text = thread_text(plan, library, values)
            documents.append({**_document(slot, [], library, values), "text": text})
        else:
            documents.append(_document(slot, draft.lines.get(slot, []), library, values))
    return {
        "id": deal_id,
        "tier": plan.tier,
        "date": plan.date.isoformat(),
        "buyer": plan.buyer["id"],
        "vendor": plan.voice["id"],
        "product": plan.voice["product"],
        "title": f"{plan.voice['product']} for {plan.buyer['staff_kind']}",
        "request": fill(library.frames["request"], values),
        "requirements": [
            {"id": item.id, "priority": item.priority, "pass_bar": library.item(item.id).pass_bar}
            for item in plan.items
        ],
        "documents": documents,
        "core_documents": [doc["id"] for doc in documents if doc["kind"] != "it_thread"],
        "planted_gaps": [_finding(item, entries[item.id], library) for item in plan.items if item.is_gap],
        "distractors": [
            _finding(item, entries[item.id], library) for item in plan.items if item.mode in ("hidden", "decoy")
        ],
        "commitments": [
            {
                "id": item.id,
                "due": item.due.isoformat(),
                "doc_id": DOC_IDS["order_form"],
                "evidence": entries[item.id]["promise"],
            }
            for item in plan.items
            if item.mode == "signed" and item.due is not None
        ],
        "it_channel": it_channel(plan, library, values),
        "decision": decision_of(plan.items),
        "annotations": {
            item.id: {"mode": item.mode, "promise": item.promise, "rumour": item.rumour} for item in plan.items
        },
    }
