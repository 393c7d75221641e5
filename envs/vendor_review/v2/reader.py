"""A reader of v2 deals that works from the documents' text alone: the proof that every label follows from what
the agent sees.

It knows what an analyst knows before opening the file (what each requirement measures and which way is
better: ``claims.json``; the deployment options vendors offer: ``frames.json``) and nothing of the answer key.
It reads every document through the tools, takes each matrix row's bar, finds the value in force (the one for
the ordered deployment option; the most recent dated statement; else the one stated), compares, and applies
the decision rule with the signed order form's promises. The tests hold it to full marks on both splits, so a
deal whose text does not decide its label fails them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from functools import cache
from typing import Any, Final

from ...core.actions import Action
from ...core.assets import asset_path, read_json
from ..shared.text import MONTHS
from .claims import MINUTES_PER_MONTH, WORDS, Claim, claim
from .compose import frames

DOC_LINE: Final = re.compile(r"^- ([a-z0-9-]+): ", re.MULTILINE)
ROW: Final = re.compile(r"^(REQ-[A-Z0-9-]+) \| (MUST|SHOULD) \| (.+)$", re.MULTILINE)
SENTENCE: Final = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])|\n+")
DATE: Final = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b")
NUMBER_WORDS: Final = {text: n for n, text in sorted(WORDS.items(), key=lambda item: -len(item[1]))}
NUMBER: Final = r"\b(\d+(?:\.\d+)?|" + "|".join(re.escape(w) for w in NUMBER_WORDS) + ")"
UNITS: Final = {"minute": 1 / 60, "hour": 1.0, "day": 24.0, "week": 168.0, "month": 1.0, "year": 12.0}
DURATION: Final = re.compile(NUMBER + r" (minute|hour|day|week|month|year)s?\b", re.IGNORECASE)
FRACTION: Final = re.compile(r"\b(a quarter of an hour|half an hour)\b", re.IGNORECASE)
PERCENT: Final = re.compile(r"(\d+(?:\.\d+)?) ?(?:%|per cent)")
DOWNTIME: Final = re.compile(r"(\d+) minutes of downtime a month")
TLS: Final = re.compile(r"TLS ?v?(\d\.\d)")


def value_in(text: str, c: Claim) -> float | None:
    """The first value of ``c``'s kind written in ``text``, in ``c``'s unit (an availability as the monthly
    downtime it allows, in whole minutes, however it is written), or None."""
    found = values_in(text, c)
    return found[0][1] if found else None


def values_in(text: str, c: Claim) -> list[tuple[int, float]]:
    """(position, value) of every value of ``c``'s kind in ``text``, in order."""
    if c.unit == "tls":
        return [(m.start(), float(m.group(1))) for m in TLS.finditer(text)]
    if c.unit == "percent":
        found = [(m.start(), float(_downtime(float(m.group(1))))) for m in PERCENT.finditer(text)]
        found += [(m.start(), float(m.group(1))) for m in DOWNTIME.finditer(text)]
        return sorted(found)
    found = [(m.start(), _duration(m.group(1), m.group(2), c.unit)) for m in DURATION.finditer(text)]
    found += [(m.start(), _fraction(m.group(1), c.unit)) for m in FRACTION.finditer(text)]
    return sorted(found)


def _number(word: str) -> float:
    word = word.lower()
    return float(NUMBER_WORDS[word]) if word in NUMBER_WORDS else float(word)


def _duration(number: str, unit: str, target: str) -> float:
    """A written duration in the claim's unit: hours (minutes to weeks), days (days, weeks) or months."""
    amount = _number(number) * UNITS[unit.lower()]
    return amount / 24 if target == "days" else amount


def _fraction(text: str, target: str) -> float:
    hours = 0.25 if text.lower().startswith("a quarter") else 0.5
    return hours if target == "hours" else hours / 24


def _meets(c: Claim, value: float, bar: float) -> bool:
    """An availability compares the downtimes it allows (less is better); everything else as its claim says."""
    if c.unit == "percent":
        return value <= bar
    return c.meets(round(value, 6), round(bar, 6))


def _downtime(percent: float) -> int:
    allowed = MINUTES_PER_MONTH * (Decimal(100) - Decimal(str(percent))) / 100
    return int(allowed.to_integral_value(ROUND_FLOOR))


def _sentences(text: str) -> list[str]:
    return [s for s in SENTENCE.split(text) if s.strip()]


def _names_row(sentence: str, c: Claim) -> bool:
    return any(
        re.search(rf"(?<![\w-]){re.escape(noun)}(?![\w-])", sentence, re.IGNORECASE)
        for nouns in c.nouns.values()
        for noun in nouns
    )


def _date(sentence: str) -> tuple[int, int, int] | None:
    m = DATE.search(sentence)
    return None if m is None else (int(m.group(3)), MONTHS.index(m.group(2)), int(m.group(1)))


@dataclass
class Reading:
    """What the reader has learned of the deal: each document's text by id."""

    pages: dict[str, str] = field(default_factory=dict)

    def sentences(self, *doc_ids: str) -> list[str]:
        return [s for d in doc_ids if d in self.pages for s in _sentences(self.pages[d])]

    def option(self) -> tuple[str, str] | None:
        """(ordered, other): the deployment option the order form names, and the vendor's other one."""
        order = self.pages.get("order-form", "")
        for a, b in known_options():
            if a in order or b in order:
                return (a, b) if a in order else (b, a)
        return None

    def in_force(self, c: Claim) -> float | None:
        vendor = [d for d in self.pages if d not in ("requirements-matrix", "it-thread", "order-form", "side-letter")]
        stated = [s for s in self.sentences(*vendor) if _names_row(s, c) and values_in(s, c)]
        option = self.option()
        for s in stated:
            if option is not None and all(name in s for name in option):
                return _option_value(s, c, option)
        dated = [(d, s) for s in stated if (d := _date(s)) is not None]
        if dated:
            return value_in(max(dated)[1], c)
        return value_in(stated[-1], c) if stated else None

    def commitment(self, c: Claim, bar: float) -> bool:
        """A signed order-form promise for ``c`` of a value that meets ``bar`` (the side letter is a draft)."""
        promised = [value_in(s, c) for s in self.sentences("order-form") if _names_row(s, c)]
        return any(v is not None and _meets(c, v, bar) for v in promised)


@cache
def known_options() -> tuple[tuple[str, str], ...]:
    """The deployment options vendors offer, as an analyst knows them: the generated deals' (``frames.json``)
    and the hand-written deals' (``deals/options.json``)."""
    pairs = [tuple(pair) for split in ("train", "test") for pair in frames()[split]["options"]]
    extra = asset_path("vendor_review", "v2", "deals", "options.json")
    if extra.is_file():
        pairs += [tuple(pair) for pair in read_json(extra)]
    return tuple((str(a), str(b)) for a, b in pairs)


def _option_value(sentence: str, c: Claim, option: tuple[str, str]) -> float | None:
    """The value a per-option statement gives the ordered option: the value written nearest after its name."""
    ordered, other = option
    at = sentence.index(ordered)
    values = values_in(sentence, c)
    after = [(pos, v) for pos, v in values if pos > at]
    other_at = sentence.index(other)
    if after and (other_at < at or after[0][0] < other_at):
        return after[0][1]
    before = [(pos, v) for pos, v in values if pos < at]
    return before[-1][1] if before else None


def review(reading: Reading) -> tuple[list[str], str]:
    """(gap ids, decision) of a fully read deal."""
    matrix = reading.pages.get("requirements-matrix", "")
    gaps: list[str] = []
    uncommitted_must = False
    for rid, priority, bar_text in ROW.findall(matrix):
        c = claim(rid)
        bar, value = value_in(bar_text, c), reading.in_force(c)
        if bar is None or value is None or _meets(c, value, bar):
            continue
        gaps.append(rid)
        if priority == "MUST" and not reading.commitment(c, bar):
            uncommitted_must = True
    decision = "go" if not gaps else "no-go" if uncommitted_must else "conditional-go"
    return gaps, decision


class ReaderPolicy:
    """Reads every listed document, then submits ``review``'s answer (a ``policies.Policy``)."""

    name = "reader"

    def __init__(self) -> None:
        self.queue: list[str] = []
        self.reading = Reading()
        self.pending: str | None = None

    def reset(self, observation: str, info: dict[str, Any]) -> None:
        self.queue = DOC_LINE.findall(observation)
        self.reading = Reading()
        self.pending = None

    def act(self, observation: str) -> Action:
        if self.pending is not None:
            self.reading.pages[self.pending] = observation
        if self.queue:
            self.pending = self.queue.pop(0)
            return {"name": "read_doc", "arguments": {"doc_id": self.pending}}
        self.pending = None
        gaps, decision = review(self.reading)
        return {
            "name": "submit_recommendation",
            "arguments": {"decision": decision, "gap_ids": gaps, "rationale": "Values in force against the bars."},
        }
