"""Writing a planned v2 deal: documents of real length around the value statements, and the answer key.

Each row's value is stated where the plan put it (questionnaire, architecture note, administration guide, DPA or
trust center), once, per deployment option, or once and restated later; the questionnaire answers every row,
with the statement itself or with a pointer or a vague line. Everything is written from the split's own pools
(``assets/vendor_review/v2/phrases.json`` and ``frames.json``), so a test deal shares no sentence frame, noun,
value form or name with a training deal. The result is a deal record: the shared scenario keys plus
``annotations`` (what only the checks and tests read).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final

from ...core.assets import asset_path, read_json
from ..shared.text import fill, long_date
from .claims import Split, render
from .plan import DealPlan, RowPlan

DOC_IDS: Final = {
    "requirements_matrix": "requirements-matrix",
    "questionnaire": "security-questionnaire",
    "architecture": "architecture-note",
    "admin_guide": "admin-guide",
    "dpa": "vendor-dpa",
    "soc2": "soc2-report",
    "trust_center": "trust-center",
    "order_form": "order-form",
    "side_letter": "side-letter",
    "it_thread": "it-thread",
}
"""Document IDs by slot, in the order the deal file lists them. Every deal has every slot but the side letter,
which a deal has when some promise is a draft."""
AUTHORS: Final = {"requirements_matrix": "buyer", "it_thread": "buyer", "soc2": "auditor"}
KINDS: Final = {"side_letter": "order_form"}
NUMBERED: Final = {"order_form": 3, "side_letter": 1}
HEAD_PARAGRAPHS: Final = 1
CHATTER: Final = 2
"""Messages of the thread that are about the purchase in general, before the rumours."""
LEAD_RATE: Final = 0.6
TAIL_RATE: Final = 0.6
"""How often a value statement gets a lead-in or a trailing clause (``clauses.json``), the same for every row."""


@cache
def phrases() -> dict[str, Any]:
    data: dict[str, Any] = read_json(asset_path("vendor_review", "v2", "phrases.json"))
    return data


@cache
def clauses() -> dict[str, Any]:
    data: dict[str, Any] = read_json(asset_path("vendor_review", "v2", "clauses.json"))
    return data


@cache
def frames() -> dict[str, Any]:
    data: dict[str, Any] = read_json(asset_path("vendor_review", "v2", "frames.json"))
    return data


@dataclass
class Writer:
    """One deal being written: its split's pools, its own random stream, and the lines of each document."""

    plan: DealPlan
    rng: random.Random
    values: dict[str, str]
    lines: dict[str, list[str]] = field(default_factory=dict)

    @property
    def split(self) -> Split:
        return self.plan.split

    def pool(self, name: str) -> Any:
        return phrases()[self.split][name]

    def pick(self, name: str) -> str:
        return str(self.rng.choice(self.pool(name)))

    def say(self, name: str, **values: str) -> str:
        return fill(self.pick(name), {**self.values, **values})

    def add(self, slot: str, line: str) -> None:
        self.lines.setdefault(slot, []).append(line)

    def value(self, row: RowPlan, value: float, *, bar: bool = False) -> str:
        return render(row.claim.unit, value, self.split, self.rng, bar=bar)

    def framed(self, sentence: str) -> str:
        """``sentence`` with a lead-in and a trailing clause, each drawn at its rate (``clauses.json``)."""
        pools = clauses()[self.split]
        if self.rng.random() < LEAD_RATE:
            first = sentence[:1].lower() if sentence[1:2].islower() else sentence[:1]
            sentence = f"{self.rng.choice(pools['lead'])} {first}{sentence[1:]}"
        if self.rng.random() < TAIL_RATE and sentence.endswith("."):
            sentence = f"{sentence[:-1]}, {self.rng.choice(pools['tail'])}"
        return sentence


def _noun_values(row: RowPlan) -> dict[str, str]:
    return {"noun": row.noun, "Noun": row.noun[:1].upper() + row.noun[1:]}


def _statements(w: Writer, row: RowPlan) -> list[tuple[str, str]]:
    """(slot, sentence) of the row's value statements, in force last."""
    nouns = _noun_values(row)
    if row.mechanism == "plans":
        options = w.values["option_a"], w.values["option_b"]
        values = [row.value, row.other] if w.plan.bought == 0 else [row.other, row.value]
        text = w.say(
            "plans",
            **nouns,
            plan_a=options[0],
            value_a=w.value(row, values[0]),
            plan_b=options[1],
            value_b=w.value(row, values[1]),
        )
        return [(row.place, w.framed(text))]
    if row.mechanism == "superseded":
        old = w.say("as_of", **nouns, value=w.value(row, row.other), date=long_date(w.plan.old_date))
        new = w.say("as_of", **nouns, value=w.value(row, row.value), date=long_date(w.plan.new_date))
        return [(row.old_place, w.framed(old)), (row.place, w.framed(new))]
    return [(row.place, w.framed(w.say("statement", **nouns, value=w.value(row, row.value))))]


def _write_row(w: Writer, code: int, row: RowPlan) -> dict[str, Any]:
    """Put one row into the documents; return its answer-key entry (slots and phrases of its evidence)."""
    nouns = _noun_values(row)
    statements = _statements(w, row)
    in_questionnaire = [text for slot, text in statements if slot == "questionnaire"]
    for slot, text in statements:
        if slot != "questionnaire":
            w.add(slot, text)
    if in_questionnaire:
        answer = " ".join(in_questionnaire)
    elif row.pointer:
        answer = w.say("pointer", **nouns, doc_title=w.values[f"title_{statements[-1][0]}"])
    else:
        answer = w.say("vague", **nouns)
    line = frames()[w.split]["questionnaire_line"]
    w.add("questionnaire", fill(line, {**nouns, "code": str(code), "answer": answer}))
    if row.vague_place:
        w.add(row.vague_place, w.say("vague", **nouns))
    promise = ""
    if row.promise != "none" and row.due is not None:
        promise = w.say("promise", **nouns, value=w.value(row, row.promised), due=long_date(row.due))
        w.add("order_form" if row.promise == "signed" else "side_letter", promise)
    return {"slots": [slot for slot, _ in statements], "phrases": [text for _, text in statements], "promise": promise}


def _thread(w: Writer, rows: tuple[RowPlan, ...]) -> str:
    """The internal thread: chatter, rumours about some rows (true or not), and colleagues dismissing some."""
    people = w.values["people"].split("|")
    messages = [
        (people[n % len(people)], fill(p, w.values))
        for n, p in enumerate(w.rng.sample(w.pool("docs")["it_thread"], CHATTER))
    ]
    for row in rows:
        if row.rumour == "none":
            continue
        person = w.rng.choice(people)
        messages.append((person, w.say("rumour", **_noun_values(row), person=person, value=w.value(row, row.rumoured))))
        if row.rumour == "discredited":
            other = w.rng.choice([p for p in people if p != person])
            messages.append((other, w.say("discredit", person=other)))
    start = w.plan.date - dt.timedelta(days=9)
    stamped = []
    for n, (speaker, text) in enumerate(messages):
        day = start + dt.timedelta(days=n * 9 // len(messages))
        said = text if text.startswith(speaker) else f"{speaker}: {text}"
        stamped.append(f"[{day.day:02d}.{day.month:02d}. {9 + n // 3:02d}:{(n * 7) % 60:02d}] {said}")
    head = fill(
        frames()[w.split]["thread_head"], {**w.values, "start": long_date(start), "end": long_date(w.plan.date)}
    )
    return head + "\n\n" + "\n".join(stamped)


def _document(w: Writer, slot: str) -> dict[str, str]:
    kind = KINDS.get(slot, slot)
    body = w.lines.get(slot, [])
    first = NUMBERED.get(slot)
    if first is not None:
        body = [f"{first + n}. {line}" for n, line in enumerate(body)]
    if slot == "requirements_matrix":
        text = fill(w.rng.choice(frames()[w.split]["matrix_head"]), w.values) + "\n\n" + "\n".join(body)
    elif slot == "it_thread":
        text = w.values["thread"]
    else:
        paragraphs = [fill(p, w.values) for p in w.rng.sample(w.pool("docs")[slot], HEAD_PARAGRAPHS)]
        parts = [*paragraphs, "\n".join(body)]
        text = "\n\n".join(part for part in parts if part)
    return {
        "id": DOC_IDS[slot],
        "title": w.values[f"title_{slot}"],
        "kind": kind,
        "author": AUTHORS.get(slot, "vendor"),
        "text": text,
    }


def _values(plan: DealPlan, rng: random.Random) -> dict[str, str]:
    pools = phrases()[plan.split]
    vendor, buyer = rng.choice(pools["vendors"]), rng.choice(pools["buyers"])
    people = rng.sample(pools["people"], 4)
    options = rng.choice(frames()[plan.split]["options"])
    values = {
        "vendor": vendor["name"],
        "product": vendor["product"],
        "buyer": buyer["name"],
        "staff_kind": buyer["staff_kind"],
        "person": people[0],
        "people": "|".join(people),
        "date": long_date(plan.date),
        "matrix_date": long_date(plan.date - dt.timedelta(days=rng.randint(40, 80))),
        "option_a": options[0],
        "option_b": options[1],
        "option": options[plan.bought],
        "channel": f"{buyer['name'].split()[0].lower()}-{vendor['product'].split()[0].lower()}-review",
    }
    for slot in DOC_IDS:
        titles = pools["titles"].get(slot) or pools["titles"][KINDS.get(slot, slot)]
        values[f"title_{slot}"] = fill(rng.choice(titles), values)
    return values


def _bar(w: Writer, row: RowPlan) -> str:
    """The row's pass bar in the matrix: a condition on the value, in the claim's direction."""
    template = w.rng.choice(w.pool("bar")[row.claim.direction])
    return fill(template, {**w.values, **_noun_values(row), "value": w.value(row, row.bar, bar=True)})


def _finding(row: RowPlan, entry: Mapping[str, Any]) -> dict[str, Any]:
    slots, phrases_ = list(entry["slots"]), list(entry["phrases"])
    if entry["promise"]:
        slots.append("order_form" if row.promise == "signed" else "side_letter")
        phrases_.append(entry["promise"])
    verdict = "falls short of" if row.is_gap else "meets"
    return {
        "id": row.id,
        "doc_ids": list(dict.fromkeys(DOC_IDS[slot] for slot in slots)),
        "evidence": phrases_,
        "explanation": f"The value in force ({row.mechanism} statement) {verdict} the bar ({row.claim.direction}).",
    }


def _commitment(row: RowPlan, entry: Mapping[str, Any]) -> dict[str, Any]:
    due = row.due.isoformat() if row.due is not None else ""
    return {"id": row.id, "due": due, "doc_id": DOC_IDS["order_form"], "evidence": entry["promise"]}


def _it_channel(w: Writer) -> dict[str, Any]:
    """One route per row (its keywords), answered with business context that says nothing of the value."""
    people = w.values["people"].split("|")
    routes = [
        {
            "keywords": list(row.claim.keywords),
            "reply": w.say("it_reply", **_noun_values(row), person=w.rng.choice(people)),
        }
        for row in w.plan.rows
    ]
    return {"routes": routes, "default_reply": w.say("it_default", person=w.values["person"])}


def compose_deal(plan: DealPlan, deal_id: str) -> dict[str, Any]:
    """The deal record of ``plan``: documents, matrix, answer key, IT channel, decision and annotations."""
    rng = random.Random(f"vr2-compose-{plan.seed}")
    w = Writer(plan, rng, _values(plan, rng))
    entries = {row.id: _write_row(w, code, row) for code, row in enumerate(plan.rows, start=1)}
    w.add("order_form", fill(rng.choice(frames()[plan.split]["plan_line"]), w.values))
    bars = {row.id: _bar(w, row) for row in plan.rows}
    w.lines["requirements_matrix"] = [f"{row.id} | {row.priority} | {bars[row.id]}" for row in plan.rows]
    w.values["thread"] = _thread(w, plan.rows)
    slots = [slot for slot in DOC_IDS if slot != "side_letter" or w.lines.get(slot)]
    documents = [_document(w, slot) for slot in slots]
    return {
        "id": deal_id,
        "tier": plan.tier,
        "date": plan.date.isoformat(),
        "buyer": w.values["buyer"],
        "vendor": w.values["vendor"],
        "product": w.values["product"],
        "title": f"{w.values['product']} for {w.values['staff_kind']}",
        "request": fill(rng.choice(frames()[plan.split]["request"]), w.values),
        "requirements": [{"id": row.id, "priority": row.priority, "pass_bar": bars[row.id]} for row in plan.rows],
        "documents": documents,
        "core_documents": [doc["id"] for doc in documents if doc["kind"] != "it_thread"],
        "planted_gaps": [_finding(row, entries[row.id]) for row in plan.rows if row.is_gap],
        "distractors": [
            _finding(row, entries[row.id])
            for row in plan.rows
            if not row.is_gap and (row.mechanism != "plain" or row.promise != "none" or row.rumour != "none")
        ],
        "commitments": [
            {
                "id": row.id,
                "due": row.due.isoformat(),
                "doc_id": DOC_IDS["order_form"],
                "evidence": entries[row.id]["promise"],
            }
            for row in plan.rows
            if row.committed and row.due is not None
        ],
        "it_channel": {
            "routes": [
                {
                    "keywords": list(row.claim.keywords),
                    "reply": w.say("it_reply", **_noun_values(row), person=w.rng.choice(w.values["people"].split("|"))),
                }
                for row in plan.rows
            ],
            "default_reply": w.say("it_default", person=w.values["person"]),
        },
        "decision": plan.decision,
        "annotations": {
            row.id: {
                "gap": row.is_gap,
                "mechanism": row.mechanism,
                "place": row.place,
                "promise": row.promise,
                "committed": row.committed,
                "rumour": row.rumour,
                "bar": row.bar,
                "value": row.value,
                "other": row.other,
                "promised": row.promised,
                "direction": row.claim.direction,
            }
            for row in plan.rows
        },
    }
